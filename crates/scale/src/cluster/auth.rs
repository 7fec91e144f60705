//! The cluster's credential: a secret token that every process of a
//! cluster reads from a file of its own user's (mode 600), presented on
//! every request between them and checked on every port.
//!
//! Where it travels, and why there: Ballista's one hook on the channels it
//! opens itself (client to scheduler, executor to scheduler, client and
//! executors to an executor's data port) is an override of the tonic
//! `Endpoint` they are made from, which can set the requests' User-Agent
//! but no other header. The token rides there, as a product
//! `anonlab-token/TOKEN`; anonlab's own requests (the `/readyz` probe, an
//! executor's notice that it stops) send it as `Authorization: Bearer
//! TOKEN`. A server takes either. It is compared in constant time (the
//! SHA-256 of what was presented against the token's).
//!
//! The token authenticates; it does not encrypt. On a network that others
//! can watch, the traffic (token and data) must go through a tunnel or a
//! private network: Ballista's TLS would need a TLS library this build
//! does not carry.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use anonlab::error::{Error, Parameter, Result};

/// The environment variable naming the token file when no flag does.
pub const TOKEN_FILE_VAR: &str = "ANONLAB_CLUSTER_TOKEN_FILE";

/// The shortest token taken, in characters.
const SHORTEST: usize = 32;
/// The longest token file read, in bytes.
const LONGEST: u64 = 4096;
/// The User-Agent product that carries the token.
const PRODUCT: &str = "anonlab-token/";

/// What a refused process or client is told, and what a user reads.
pub(crate) const REFUSED: &str =
    "the scheduler refused the credential (no token, or not the cluster's; give the cluster's token file)";
/// The same, of an executor's data port.
pub(crate) const DATA_REFUSED: &str =
    "an executor's data port refused the credential (no token, or not the cluster's; give the cluster's token file)";

/// The cluster's shared secret.
#[derive(Clone)]
pub struct Token {
    secret: Arc<str>,
    digest: [u8; 32],
}

impl Token {
    /// The token in the file at `path`, which only its owner may read or
    /// write (mode 600 or 400): anything else is refused, before the file
    /// is read.
    pub fn from_file(path: &Path) -> Result<Token> {
        use std::io::Read;
        let bad = |msg: String| {
            Error::invalid(
                Parameter::TokenFile,
                format!("the cluster's token file {}: {msg}", path.display()),
            )
        };
        // Opened once, then looked at and read through the same handle;
        // without waiting for a writer if it is a FIFO.
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
        let mut file = options
            .open(path)
            .map_err(|e| bad(format!("cannot read it: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| bad(format!("cannot read it: {e}")))?;
        if !meta.is_file() {
            return Err(bad("is not a regular file".into()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(bad(format!(
                    "its mode is {mode:o}, so users other than its owner can read or change it; make it 600 (chmod 600 {})",
                    path.display()
                )));
            }
            // SAFETY: geteuid has no preconditions and cannot fail.
            let me = unsafe { libc::geteuid() };
            if meta.uid() != me {
                return Err(bad(format!(
                    "it belongs to the user of uid {}, not to the user running anonlab (uid {me}), who could change it; keep the token in a file of this user's",
                    meta.uid()
                )));
            }
        }
        let mut text = Vec::new();
        file.by_ref()
            .take(LONGEST + 1)
            .read_to_end(&mut text)
            .map_err(|e| bad(format!("cannot read it: {e}")))?;
        if text.len() as u64 > LONGEST {
            return Err(bad(format!(
                "it is over {LONGEST} bytes; a token is one line"
            )));
        }
        Token::new(text.trim_ascii()).map_err(bad)
    }

    /// A token from its text: at least 32 visible ASCII characters, no
    /// spaces.
    pub fn new(text: &[u8]) -> std::result::Result<Token, String> {
        if !text.iter().all(|b| b.is_ascii_graphic()) {
            return Err("a token is visible ASCII characters without spaces (make one with `openssl rand -hex 32`)".into());
        }
        if text.len() < SHORTEST {
            return Err(format!(
                "the token is {} characters; make one of at least {SHORTEST} (`openssl rand -hex 32`)",
                text.len()
            ));
        }
        let secret: Arc<str> = std::str::from_utf8(text).map_err(|e| e.to_string())?.into();
        Ok(Token {
            digest: Sha256::digest(secret.as_bytes()).into(),
            secret,
        })
    }

    /// Whether `presented` is the token, in time that does not depend on
    /// where they differ.
    pub(crate) fn is(&self, presented: &[u8]) -> bool {
        let other: [u8; 32] = Sha256::digest(presented).into();
        let diff = self
            .digest
            .iter()
            .zip(other.iter())
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        std::hint::black_box(diff) == 0
    }

    /// Whether a request with these `authorization` and `user-agent`
    /// header values presents the token.
    pub(crate) fn presented_in(
        &self,
        authorization: Option<&[u8]>,
        user_agent: Option<&[u8]>,
    ) -> bool {
        let bearer = authorization.and_then(|a| a.strip_prefix(b"Bearer "));
        let product = user_agent.and_then(|ua| {
            ua.split(|b| *b == b' ')
                .find_map(|p| p.strip_prefix(PRODUCT.as_bytes()))
        });
        // Both looked at, whichever is there.
        let by_bearer = bearer.is_some_and(|t| self.is(t));
        let by_product = product.is_some_and(|t| self.is(t));
        by_bearer | by_product
    }

    /// An `Authorization` header's value for anonlab's own requests.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.secret)
    }

    /// `endpoint` presenting the token on each of its requests.
    pub(crate) fn on(
        &self,
        endpoint: tonic::transport::Endpoint,
    ) -> std::result::Result<tonic::transport::Endpoint, tonic::transport::Error> {
        endpoint.user_agent(format!("{PRODUCT}{}", self.secret))
    }

    /// The override Ballista applies to every channel it opens: the
    /// token on each request.
    pub(crate) fn endpoint_override(&self) -> ballista_core::extension::EndpointOverrideFn {
        let token = self.clone();
        Arc::new(move |endpoint: tonic::transport::Endpoint| {
            token
                .on(endpoint)
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })
        })
    }

    /// A tonic interceptor refusing every request without the token, with
    /// [`DATA_REFUSED`] (it guards the executors' data ports).
    pub(crate) fn interceptor(
        &self,
    ) -> impl FnMut(tonic::Request<()>) -> std::result::Result<tonic::Request<()>, tonic::Status> + Clone
    {
        let token = self.clone();
        move |request: tonic::Request<()>| {
            let m = request.metadata();
            let header = |name: &str| m.get(name).map(|v| v.as_bytes());
            if token.presented_in(header("authorization"), header("user-agent")) {
                Ok(request)
            } else {
                let peer = request
                    .remote_addr()
                    .map_or_else(|| "?".to_string(), |a| a.to_string());
                log::warn!("refused a call from {peer}: no token, or not the cluster's");
                Err(tonic::Status::unauthenticated(DATA_REFUSED))
            }
        }
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl PartialEq for Token {
    fn eq(&self, other: &Token) -> bool {
        self.is(other.secret.as_bytes())
    }
}

impl Eq for Token {}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_is_long_and_visible() {
        assert!(Token::new(GOOD.as_bytes()).is_ok());
        assert!(Token::new(b"short").unwrap_err().contains("at least 32"));
        let spaced = format!("{GOOD} x");
        assert!(Token::new(spaced.as_bytes())
            .unwrap_err()
            .contains("without spaces"));
    }

    #[test]
    fn only_the_token_is_taken() {
        let t = Token::new(GOOD.as_bytes()).unwrap();
        assert!(t.is(GOOD.as_bytes()));
        assert!(!t.is(b"0123456789abcdef0123456789abcdeF"));
        assert!(!t.is(b""));
        let ua = format!("{PRODUCT}{GOOD} tonic/0.14");
        assert!(t.presented_in(None, Some(ua.as_bytes())));
        assert!(t.presented_in(Some(t.bearer().as_bytes()), None));
        assert!(!t.presented_in(None, Some(b"tonic/0.14")));
        assert!(!t.presented_in(Some(GOOD.as_bytes()), None));
        assert!(!t.presented_in(None, None));
        assert_eq!(format!("{t:?}"), "Token(..)");
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format!("{GOOD}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = Token::from_file(&path).unwrap_err().to_string();
        assert!(e.contains("mode is 644") && e.contains("chmod 600"), "{e}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(Token::from_file(&path).unwrap().is(GOOD.as_bytes()));
    }
}

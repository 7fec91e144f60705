//! The data root: the one directory under which a scheduler plans and an
//! executor reads. Every file DataFusion opens goes through the object
//! store registered for `file://` in the process's sessions; here that
//! store is [`Confined`], which resolves each path (symbolic links
//! followed, as the read would) and refuses any outside the root, and
//! refuses every write: the cluster reads files, the client writes its
//! outputs itself.
//!
//! Before a file's bytes are served, the store runs the in-memory
//! reader's checks of its metadata on it ([`anonlab::data::formats::check_metadata`],
//! as the engine does before DataFusion on one machine): a Parquet or
//! Arrow file whose footer, chunk or page sizes lie (a 1 KB file claiming
//! 2^40 bytes) is refused with the reader's message naming the file,
//! instead of reaching DataFusion's reader, whose allocation of what the
//! file claims aborts the process (Rust's allocation failure is no
//! panic, so no `catch_unwind` saves a task from it: the claim must be
//! refused before it is allocated). The client makes the same checks,
//! but the executors check what they read themselves: the file they
//! open may not be the one the client looked at. The checks use the
//! readers' default limits (the executor's own bound on what one task
//! decompresses: 2 GiB of pages per row group), not the client's flags.
//! A file checked is remembered by its size and modification time, for
//! the life of the process.
//!
//! A path is resolved when it is asked for and then read by the name it
//! was asked by: a user who may change the directories under the root can
//! swap a directory for a link between the two. The root is for
//! directories only the operator writes.

use std::collections::HashMap;
use std::fmt;
use std::path::{Component, Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use async_trait::async_trait;
use datafusion::execution::object_store::{
    DefaultObjectStoreRegistry, ObjectStoreRegistry, ObjectStoreUrl,
};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::object_store::local::LocalFileSystem;
use datafusion::object_store::path::Path;
use datafusion::object_store::{
    self, CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use datafusion::prelude::SessionConfig;
use futures::stream::{BoxStream, StreamExt};

use anonlab::error::{Error, Parameter, Result};

/// The words of a refusal, which a client finds in the error that comes
/// back through Ballista ([`refusal_in`]).
const OUTSIDE: &str = " is outside the data root ";
/// The words before a reader's refusal of a file's metadata, which a
/// client finds in the same way ([`malformed_in`]).
const CHECKED: &str = "the cluster's check of what it reads refused the file: ";
/// What the cluster says instead of a reader's remedy (a flag of the
/// client's, which does not reach the cluster's checks).
const DEFAULT_LIMITS: &str =
    "the cluster's processes check the files they read with the readers' default limits";

/// A directory under which the cluster reads, by its resolved path; and
/// the files its stores have checked, shared by every store made from it
/// (a session's, a task's), so a process checks a file once.
#[derive(Debug, Clone)]
pub struct DataRoot(PathBuf, Checked);

/// Files whose checks passed, by path: what they were then ([`Stamp`]; a
/// file changed or replaced since is checked again).
type Checked = Arc<Mutex<HashMap<PathBuf, Stamp>>>;

/// A file's size, modification time and (on Unix) device and inode: a
/// file renamed over another has a new inode, whatever its size and time.
type Stamp = (u64, Option<SystemTime>, u64, u64);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    (meta.len(), meta.modified().ok(), dev, ino)
}

impl PartialEq for DataRoot {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for DataRoot {}

impl DataRoot {
    /// The data root `dir`: a directory, resolved (links followed).
    pub fn new(dir: &FsPath) -> Result<DataRoot> {
        let bad = |msg: String| {
            Error::invalid(
                Parameter::DataRoot,
                format!("the data root {}: {msg}", dir.display()),
            )
        };
        let resolved = dir
            .canonicalize()
            .map_err(|e| bad(format!("cannot resolve it: {e}")))?;
        if !resolved.is_dir() {
            return Err(bad("is not a directory".into()));
        }
        if resolved.parent().is_none() {
            return Err(bad(
                "it is the whole file system; give the directory that holds the data".into(),
            ));
        }
        Ok(DataRoot(resolved, Checked::default()))
    }

    pub fn path(&self) -> &FsPath {
        &self.0
    }

    /// A DataFusion runtime whose file store is confined to the root,
    /// temporary files in `temp` (DataFusion's default when `None`).
    pub(crate) fn runtime(&self, temp: Option<&str>) -> datafusion::error::Result<Arc<RuntimeEnv>> {
        let registry = DefaultObjectStoreRegistry::new();
        registry.register_store(
            ObjectStoreUrl::local_filesystem().as_ref(),
            Arc::new(Confined {
                root: self.0.clone(),
                inner: LocalFileSystem::new(),
                checked: self.1.clone(),
            }),
        );
        let mut builder = RuntimeEnvBuilder::new().with_object_store_registry(Arc::new(registry));
        if let Some(temp) = temp {
            builder = builder.with_temp_file_path(temp);
        }
        builder.build_arc()
    }

    /// Ballista's producer of executor runtimes, confined to the root.
    pub(crate) fn runtime_producer(&self, temp: String) -> ballista_core::RuntimeProducer {
        let root = self.clone();
        Arc::new(move |_: &SessionConfig| root.runtime(Some(&temp)))
    }
}

/// The path of a refusal in the text of an error that came back through
/// Ballista (its messages nest and quote), in the words it was made.
pub(crate) fn refusal_in(text: &str) -> Option<String> {
    let at = text.find(OUTSIDE)?;
    let start = text[..at].rfind("path /")?;
    let rest = &text[at + OUTSIDE.len()..];
    let end = rest.find(['"', '\\', '\n']).unwrap_or(rest.len());
    // What the nesting adds after it: closing brackets, spaces, a stop.
    let root = rest[..end].trim_end_matches([')', '}', ']', ' ', '.']);
    Some(format!("{}{OUTSIDE}{root}", &text[start..at]))
}

/// A reader's refusal of a file's metadata in the text of an error that
/// came back through Ballista, in the reader's words.
pub(crate) fn malformed_in(text: &str) -> Option<&str> {
    let rest = &text[text.find(CHECKED)? + CHECKED.len()..];
    let end = rest.find(['"', '\\', '\n']).unwrap_or(rest.len());
    Some(rest[..end].trim_end())
}

/// `LocalFileSystem`, refusing what is outside `root`, every write, and
/// a file whose metadata the readers' checks refuse.
#[derive(Debug)]
struct Confined {
    root: PathBuf,
    inner: LocalFileSystem,
    /// The files checked, the data root's.
    checked: Checked,
}

/// How many checked files a store remembers before it forgets them all.
const REMEMBERED: usize = 4096;

/// A refusal of the store's, whose `Debug` (which Ballista's messages
/// use) is its words as a string literal: the client reduces a debug form
/// to its literals (`engine::without_debug`), so bare words would be lost.
struct Refused(String);

impl fmt::Debug for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

fn refused(msg: String) -> object_store::Error {
    object_store::Error::Generic {
        store: "data root",
        source: Box::new(Refused(msg)),
    }
}

fn read_only() -> object_store::Error {
    object_store::Error::NotSupported {
        source: Box::new(Refused(
            "the cluster reads files under its data root and writes none".into(),
        )),
    }
}

/// `path` with links resolved: its longest existing ancestor resolved,
/// the rest (which does not exist yet) appended.
fn resolve(path: &FsPath) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(mut found) = at.canonicalize() {
            found.extend(rest.iter().rev());
            return found;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether `location`, as a local file system path, is under `root`;
/// the refusal when it is not.
fn check(inner: &LocalFileSystem, root: &FsPath, location: &Path) -> object_store::Result<()> {
    let file = inner.path_to_filesystem(location)?;
    if file
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
    {
        return Err(refused(format!(
            "path {} has . or .. in it, which the cluster does not read",
            file.display()
        )));
    }
    let resolved = resolve(&file);
    if resolved.starts_with(root) {
        return Ok(());
    }
    let shown = if resolved == file {
        file.display().to_string()
    } else {
        format!(
            "{} (which resolves to {})",
            file.display(),
            resolved.display()
        )
    };
    Err(refused(format!("path {shown}{OUTSIDE}{}", root.display())))
}

impl Confined {
    fn check(&self, location: &Path) -> object_store::Result<()> {
        check(&self.inner, &self.root, location)
    }

    /// The readers' checks of the file at `location` (under the root),
    /// unless it passed them as it is now; the reader's refusal, worded
    /// as it is, when it does not.
    async fn check_data(&self, location: &Path) -> object_store::Result<()> {
        let file = self.inner.path_to_filesystem(location)?;
        // A file that is not there is the inner store's to tell.
        let Ok(meta) = std::fs::metadata(&file) else {
            return Ok(());
        };
        if !meta.is_file() {
            return Ok(());
        }
        let stamp = stamp(&meta);
        let known = |checked: &HashMap<PathBuf, _>| checked.get(&file) == Some(&stamp);
        if self.checked.lock().is_ok_and(|c| known(&c)) {
            return Ok(());
        }
        let path = file.clone();
        let checked = tokio::task::spawn_blocking(move || {
            anonlab::data::formats::check_metadata(&path, &anonlab::data::CsvOptions::default())
        })
        .await
        .map_err(|e| {
            refused(format!(
                "{}: the check of the file failed: {e}",
                file.display()
            ))
        })?;
        checked.map_err(|e| {
            let msg = e.message_with(|_| DEFAULT_LIMITS.to_string(), |p| format!("{p:?}"));
            refused(format!("{CHECKED}{msg}"))
        })?;
        if let Ok(mut c) = self.checked.lock() {
            if c.len() >= REMEMBERED {
                c.clear();
            }
            c.insert(file, stamp);
        }
        Ok(())
    }
}

impl fmt::Display for Confined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "files under {}", self.root.display())
    }
}

#[async_trait]
impl ObjectStore for Confined {
    async fn put_opts(
        &self,
        _: &Path,
        _: PutPayload,
        _: PutOptions,
    ) -> object_store::Result<PutResult> {
        Err(read_only())
    }

    async fn put_multipart_opts(
        &self,
        _: &Path,
        _: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        Err(read_only())
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.check(location)?;
        // A request for the file's size and time reads none of its bytes.
        if !options.head {
            self.check_data(location).await?;
        }
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        locations.map(|_| Err(read_only())).boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.list_checked(prefix, None)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.list_checked(prefix, Some(offset))
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.check(prefix.unwrap_or(&Path::default()))?;
        let mut found = self.inner.list_with_delimiter(prefix).await?;
        found
            .objects
            .retain(|o| check(&self.inner, &self.root, &o.location).is_ok());
        found
            .common_prefixes
            .retain(|p| check(&self.inner, &self.root, p).is_ok());
        Ok(found)
    }

    async fn copy_opts(&self, _: &Path, _: &Path, _: CopyOptions) -> object_store::Result<()> {
        Err(read_only())
    }
}

impl Confined {
    /// The objects under `prefix` (after `offset`) that are under the
    /// root once resolved; the prefix outside it is refused.
    fn list_checked(
        &self,
        prefix: Option<&Path>,
        offset: Option<&Path>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        if let Err(e) = self.check(prefix.unwrap_or(&Path::default())) {
            return futures::stream::once(async move { Err(e) }).boxed();
        }
        let found = match offset {
            Some(offset) => self.inner.list_with_offset(prefix, offset),
            None => self.inner.list(prefix),
        };
        let (inner, root) = (LocalFileSystem::new(), self.root.clone());
        found
            .filter(move |o| {
                let keep = match o {
                    Ok(o) => check(&inner, &root, &o.location).is_ok(),
                    Err(_) => true,
                };
                futures::future::ready(keep)
            })
            .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(root: &FsPath) -> Confined {
        Confined {
            root: root.canonicalize().unwrap(),
            inner: LocalFileSystem::new(),
            checked: Checked::default(),
        }
    }

    fn location(p: &FsPath) -> Path {
        Path::from_absolute_path(p).unwrap()
    }

    #[test]
    fn a_root_is_a_directory_not_the_whole_file_system() {
        let e = DataRoot::new(FsPath::new("/")).unwrap_err().to_string();
        assert!(e.contains("whole file system"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = DataRoot::new(&file).unwrap_err().to_string();
        assert!(e.contains("is not a directory"), "{e}");
        let e = DataRoot::new(&dir.path().join("none"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot resolve it"), "{e}");
        let root = DataRoot::new(dir.path()).unwrap();
        assert_eq!(root.path(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn only_files_under_the_root_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("in.csv"), "a\n1\n").unwrap();
        std::fs::write(dir.path().join("out.csv"), "secret\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("out.csv"), root.join("link.csv")).unwrap();
        let s = store(&root);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let got = s
                .get_opts(&location(&root.join("in.csv")), GetOptions::default())
                .await;
            assert_eq!(got.unwrap().bytes().await.unwrap().as_ref(), b"a\n1\n");
            let e = s
                .get_opts(
                    &location(&dir.path().join("out.csv")),
                    GetOptions::default(),
                )
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains("out.csv is outside the data root"), "{e}");
            #[cfg(unix)]
            {
                let e = s
                    .get_opts(&location(&root.join("link.csv")), GetOptions::default())
                    .await
                    .unwrap_err();
                let text = format!("{e:?}");
                assert!(text.contains("which resolves to"), "{text}");
                let told = refusal_in(&format!("Execution(\"Job 1 failed: {text} }})\")")).unwrap();
                assert!(
                    told.starts_with("path ") && told.contains("link.csv"),
                    "{told}"
                );
                assert!(
                    told.ends_with(&root.canonicalize().unwrap().display().to_string()),
                    "{told}"
                );
            }
            // Nothing is written.
            let new = location(&root.join("new"));
            let put = s.put_opts(&new, PutPayload::default(), PutOptions::default());
            assert!(put.await.is_err());
            assert!(!root.join("new").exists());
        });
    }

    /// A malformed Parquet file is refused by the store with the reader's
    /// message naming it, before any of its bytes are served (issue 36:
    /// DataFusion's reader panicked or aborted on such files); a good one
    /// is served, and checked once.
    #[test]
    fn a_malformed_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let bad = root.join("bad.parquet");
        std::fs::write(&bad, b"PAR1PAR1").unwrap();
        // A footer length past the start of the file.
        let lying = root.join("lying.parquet");
        let mut bytes = b"PAR1".to_vec();
        bytes.extend([0u8; 16]);
        bytes.extend((1u32 << 30).to_le_bytes());
        bytes.extend(b"PAR1");
        std::fs::write(&lying, bytes).unwrap();
        let good = root.join("good.csv");
        std::fs::write(&good, "a\n1\n").unwrap();
        let s = store(&root);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            for file in [&bad, &lying] {
                let e = s
                    .get_opts(&location(file), GetOptions::default())
                    .await
                    .unwrap_err();
                let text = format!("{e:?}");
                let nested = format!("Execution(\"Job 1 failed: {text}\")");
                let told = malformed_in(&nested).unwrap();
                assert!(told.starts_with(&file.display().to_string()), "{told}");
                assert!(!text.contains("outside the data root"), "{text}");
                assert!(s.checked.lock().unwrap().get(file.as_path()).is_none());
            }
            let got = s.get_opts(&location(&good), GetOptions::default()).await;
            assert_eq!(got.unwrap().bytes().await.unwrap().as_ref(), b"a\n1\n");
            assert!(s.checked.lock().unwrap().contains_key(good.as_path()));
        });
    }
}

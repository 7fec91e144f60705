//! The frequency table's group-by on integer codes: what makes the
//! engine's table fast on a columnar file (`data::engine`).
//!
//! DataFusion's group-by over several text columns compares the cells of
//! every row against its groups' (a `memcmp` per column and row) and, its
//! keys being as wide as the text, fills its memory pool and spills. Most
//! files an assessment reads have few distinct values per column (census
//! attributes: tens to thousands) and many combinations, so the plan here
//! runs in two phases:
//! 1. per column, its distinct values (a single-column group-by, which
//!    reads only that column of a Parquet or Arrow file);
//! 2. a scalar function gives each row's cells their indices in those
//!    lists, packed into one or more `UInt64` keys (each column
//!    `⌈log₂ n⌉` bits for its `n` distinct values, null one of them, a
//!    column with one value none), and the engine groups by the keys
//!    with `COUNT(*)`: an integer group-by, a few bytes per group.
//!
//! The groups come back as indices into the distinct values, which are
//! read once each by anonlab's rules. Two rows fall in one group exactly
//! when their cells are the same stored values, as in the group-by on
//! the values, so the table (after `data::engine`'s merge of what reading
//! makes equal) is the same, in the same order.
//!
//! Choices made here, and why:
//! - Only for Parquet and Arrow files: phase 1 reads one column per query,
//!   which costs a CSV file a full parse each time.
//! - Only on this machine's engine: a cluster's executors would need the
//!   function sent to them (an extension codec); `data::cluster` keeps the
//!   group-by on the values (`data::engine::frequency_table_in`).
//! - Not for floating-point columns: whether the engine's DISTINCT and the
//!   lookup here agree on `-0.0` and `0.0`, or on NaNs, is not something
//!   to depend on; such a file takes the group-by on the values.
//! - A cell of a text or binary column is looked up by its bytes; a short
//!   string of a view array (≤ 12 bytes, held inline) by its 16-byte view
//!   first, which needs no pointer chase. A cell of another type is looked
//!   up by its encoding in Arrow's row format, equal exactly when the
//!   values are. A cell missing from phase 1's lists (the file changed
//!   between the phases) is an error, not a wrong count.
//! - The lookup tables are outside the engine's memory pool; they hold the
//!   columns' distinct values, which the frequency table holds anyway.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{ByteArrayType, ByteViewType, UInt64Type};
use arrow_array::{
    Array, ArrayRef, GenericByteArray, GenericByteViewArray, Int64Array, RecordBatch, UInt64Array,
};
use arrow_schema::DataType;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::{exec_err, Result as DfResult};
use datafusion::functions_aggregate::count::count_all;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::prelude::{col, DataFrame, Expr};
use futures::StreamExt;
use rustc_hash::FxHashMap;

/// Whether the coded group-by applies to columns of these types.
pub(super) fn codable(types: &[&DataType]) -> bool {
    fn float(t: &DataType) -> bool {
        match t {
            DataType::Float16 | DataType::Float32 | DataType::Float64 => true,
            DataType::Dictionary(_, v) => float(v),
            _ => false,
        }
    }
    !types.iter().any(|t| float(t))
}

/// The distinct values of one column, and how a cell finds its index.
struct Dictionary {
    /// The distinct values, null among them if the column has one.
    values: ArrayRef,
    lookup: Lookup,
}

enum Lookup {
    /// Text and binary: by bytes; short view strings by their view.
    Bytes {
        views: FxHashMap<u128, u32>,
        bytes: FxHashMap<Box<[u8]>, u32>,
        null: Option<u32>,
    },
    /// Any other type: by the value's row encoding (nulls included).
    Rows {
        converter: RowConverter,
        rows: FxHashMap<Box<[u8]>, u32>,
    },
}

/// The view a string of at most 12 bytes has in a view array: its length,
/// then its bytes, zero-padded.
fn inline_view(bytes: &[u8]) -> Option<u128> {
    if bytes.len() > 12 {
        return None;
    }
    let mut v = [0u8; 16];
    v[..4].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
    v[4..4 + bytes.len()].copy_from_slice(bytes);
    Some(u128::from_le_bytes(v))
}

/// The bytes of each cell of a text or binary array (`None`: another type).
fn byte_cells(array: &dyn Array) -> Option<Vec<Option<&[u8]>>> {
    fn plain<T: ByteArrayType>(a: &GenericByteArray<T>) -> Vec<Option<&[u8]>> {
        a.iter().map(|v| v.map(|v| v.as_ref())).collect()
    }
    fn view<T: ByteViewType + ?Sized>(a: &GenericByteViewArray<T>) -> Vec<Option<&[u8]>> {
        a.iter().map(|v| v.map(|v| v.as_ref())).collect()
    }
    Some(match array.data_type() {
        DataType::Utf8 => plain(array.as_string::<i32>()),
        DataType::LargeUtf8 => plain(array.as_string::<i64>()),
        DataType::Binary => plain(array.as_binary::<i32>()),
        DataType::LargeBinary => plain(array.as_binary::<i64>()),
        DataType::Utf8View => view(array.as_string_view()),
        DataType::BinaryView => view(array.as_binary_view()),
        _ => return None,
    })
}

impl Dictionary {
    fn new(values: ArrayRef) -> DfResult<Dictionary> {
        let lookup = match byte_cells(values.as_ref()) {
            Some(cells) => {
                let mut views = FxHashMap::default();
                let mut bytes = FxHashMap::default();
                let mut null = None;
                for (i, cell) in cells.into_iter().enumerate() {
                    let i = i as u32;
                    match cell {
                        None => null = Some(i),
                        Some(b) => {
                            if let Some(v) = inline_view(b) {
                                views.insert(v, i);
                            }
                            bytes.insert(b.into(), i);
                        }
                    }
                }
                Lookup::Bytes { views, bytes, null }
            }
            None => {
                let converter =
                    RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
                let encoded = converter.convert_columns(std::slice::from_ref(&values))?;
                let rows = (0..values.len())
                    .map(|i| (encoded.row(i).as_ref().into(), i as u32))
                    .collect();
                Lookup::Rows { converter, rows }
            }
        };
        Ok(Dictionary { values, lookup })
    }

    /// Bits a code of this column takes.
    fn bits(&self) -> u32 {
        bits_for(self.values.len())
    }

    /// OR each cell's index, shifted left by `shift`, into `keys`.
    fn pack(&self, array: &ArrayRef, shift: u32, keys: &mut [u64]) -> DfResult<()> {
        match &self.lookup {
            Lookup::Bytes { views, bytes, null } => {
                let by_bytes = |cell: Option<&[u8]>| match cell {
                    None => *null,
                    Some(b) => bytes.get(b).copied(),
                };
                match array.data_type() {
                    DataType::Utf8View => {
                        pack_views(array.as_string_view(), views, by_bytes, shift, keys)
                    }
                    DataType::BinaryView => {
                        pack_views(array.as_binary_view(), views, by_bytes, shift, keys)
                    }
                    _ => {
                        let Some(cells) = byte_cells(array.as_ref()) else {
                            return exec_err!("a column of type {} is not text", array.data_type());
                        };
                        for (k, cell) in keys.iter_mut().zip(cells) {
                            *k |= u64::from(found(by_bytes(cell))?) << shift;
                        }
                        Ok(())
                    }
                }
            }
            Lookup::Rows { converter, rows } => {
                let encoded = converter.convert_columns(std::slice::from_ref(array))?;
                for (i, k) in keys.iter_mut().enumerate() {
                    let code = rows.get(encoded.row(i).as_ref()).copied();
                    *k |= u64::from(found(code)?) << shift;
                }
                Ok(())
            }
        }
    }
}

fn pack_views<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
    views: &FxHashMap<u128, u32>,
    by_bytes: impl Fn(Option<&[u8]>) -> Option<u32>,
    shift: u32,
    keys: &mut [u64],
) -> DfResult<()> {
    let all = array.views();
    for (i, k) in keys.iter_mut().enumerate() {
        let code = if array.is_null(i) {
            by_bytes(None)
        } else {
            let view = all[i];
            // Inline strings whose padding is not zero miss here and are
            // found by their bytes.
            match ((view as u32) <= 12).then(|| views.get(&view)).flatten() {
                Some(&c) => Some(c),
                None => by_bytes(Some(array.value(i).as_ref())),
            }
        };
        *k |= u64::from(found(code)?) << shift;
    }
    Ok(())
}

fn found(code: Option<u32>) -> DfResult<u32> {
    match code {
        Some(c) => Ok(c),
        None => exec_err!(
            "a value not among the column's distinct values read a moment before (did the file change?)"
        ),
    }
}

/// Bits that number `n` codes (0 for one).
fn bits_for(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        u64::BITS - ((n - 1) as u64).leading_zeros()
    }
}

/// Columns into keys, in their order: each key the columns (their index
/// and shift) that fill at most 64 bits. A column of one value (0 bits)
/// is in no key, its index always 0, unless no column has more: a
/// group-by needs a key (grouping by nothing gives a row even for no
/// records).
fn layout(bits: &[u32]) -> Vec<Vec<(usize, u32)>> {
    let mut keys: Vec<Vec<(usize, u32)>> = Vec::new();
    let mut used = u64::BITS;
    for (c, &b) in bits.iter().enumerate().filter(|&(_, &b)| b > 0) {
        if used + b > u64::BITS {
            keys.push(Vec::new());
            used = 0;
        }
        keys.last_mut().expect("a key was pushed").push((c, used));
        used += b;
    }
    if keys.is_empty() {
        keys.push(vec![(0, 0)]);
    }
    keys
}

/// The scalar function that packs the codes of some columns into a key.
#[derive(Debug)]
struct PackCodes {
    name: String,
    signature: Signature,
    dictionaries: Arc<Vec<Dictionary>>,
    /// (column, shift) of each argument.
    columns: Vec<(usize, u32)>,
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} distinct values", self.values.len())
    }
}

impl PartialEq for PackCodes {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for PackCodes {}
impl Hash for PackCodes {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl ScalarUDFImpl for PackCodes {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::UInt64)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let mut keys = vec![0u64; args.number_rows];
        for (array, &(c, shift)) in arrays.iter().zip(&self.columns) {
            self.dictionaries[c].pack(array, shift, &mut keys)?;
        }
        Ok(ColumnarValue::Array(Arc::new(UInt64Array::from(keys))))
    }
}

/// The groups of `columns` of `df`, as the coded plan finds them.
pub(super) struct CodedGroups {
    /// Each column's distinct values, in their original type.
    pub values: Vec<ArrayRef>,
    /// Per group, each column's index into its values.
    pub indices: Vec<Vec<u32>>,
    /// Records of each group.
    pub counts: Vec<u64>,
}

/// Group `df` by `columns` through their codes.
pub(super) async fn coded_groups(
    df: &DataFrame,
    columns: &[String],
) -> datafusion::error::Result<CodedGroups> {
    let mut dictionaries = Vec::with_capacity(columns.len());
    for c in columns {
        let batches = df
            .clone()
            .aggregate(vec![col(quoted(c))], vec![])?
            .collect()
            .await?;
        let values: Vec<&dyn Array> = batches.iter().map(|b| b.column(0).as_ref()).collect();
        let values = if values.is_empty() {
            arrow_array::new_empty_array(df.schema().field_with_unqualified_name(c)?.data_type())
        } else {
            datafusion::arrow::compute::concat(&values)?
        };
        dictionaries.push(Dictionary::new(values)?);
    }
    let dictionaries = Arc::new(dictionaries);
    let bits: Vec<u32> = dictionaries.iter().map(Dictionary::bits).collect();
    let layout = layout(&bits);
    // Tells this plan's functions from another's (DataFusion compares
    // functions by name, and two plans' dictionaries differ): the address
    // of the dictionaries they share, which no other plan's can have while
    // these functions live (no global counter: the library keeps no
    // hidden state).
    let plan = Arc::as_ptr(&dictionaries) as usize;
    let keys: Vec<Expr> = layout
        .iter()
        .enumerate()
        .map(|(k, packed)| {
            let udf = ScalarUDF::from(PackCodes {
                name: format!("anonlab_codes_{plan}_{k}"),
                signature: Signature::any(packed.len(), Volatility::Immutable),
                dictionaries: Arc::clone(&dictionaries),
                columns: packed.clone(),
            });
            let args = packed
                .iter()
                .map(|&(c, _)| col(quoted(&columns[c])))
                .collect();
            udf.call(args).alias(format!("k{k}"))
        })
        .collect();
    let mut stream = df
        .clone()
        .aggregate(keys, vec![count_all()])?
        .execute_stream()
        .await?;
    // Where each column's index is read: its key, shift and mask.
    let mut place: Vec<Option<(usize, u32, u64)>> = vec![None; columns.len()];
    for (k, packed) in layout.iter().enumerate() {
        for &(c, shift) in packed {
            let mask = if bits[c] == 0 {
                0
            } else {
                u64::MAX >> (u64::BITS - bits[c])
            };
            place[c] = Some((k, shift, mask));
        }
    }
    let mut indices: Vec<Vec<u32>> = vec![Vec::new(); columns.len()];
    let mut counts = Vec::new();
    while let Some(batch) = stream.next().await {
        let batch: RecordBatch = batch?;
        for (c, at) in place.iter().enumerate() {
            match *at {
                Some((k, shift, mask)) => {
                    let key = batch.column(k).as_primitive::<UInt64Type>();
                    indices[c].extend(key.values().iter().map(|&v| ((v >> shift) & mask) as u32));
                }
                None => indices[c].extend(std::iter::repeat_n(0, batch.num_rows())),
            }
        }
        let n = batch.column(layout.len());
        let Some(n) = n.as_any().downcast_ref::<Int64Array>() else {
            return exec_err!("a count of type {}", n.data_type());
        };
        counts.extend(n.values().iter().map(|&c| c.max(0) as u64));
    }
    let values = dictionaries.iter().map(|d| Arc::clone(&d.values)).collect();
    Ok(CodedGroups {
        values,
        indices,
        counts,
    })
}

/// A column named exactly, whatever its case or characters (`col` would
/// read `A` as `a` and `a.b` as a qualified name).
fn quoted(name: &str) -> datafusion::common::Column {
    datafusion::common::Column::from_name(name)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use arrow_array::{DictionaryArray, Float64Array, Int64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use datafusion::prelude::{SessionConfig, SessionContext};

    use super::*;
    use crate::engine::{frequency_table_with, FrequencyTable, GroupBy};
    use anonlab::data::CsvOptions;

    #[test]
    fn bits_number_the_codes() {
        assert_eq!(bits_for(0), 0);
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(2), 1);
        assert_eq!(bits_for(3), 2);
        assert_eq!(bits_for(4), 2);
        assert_eq!(bits_for(5), 3);
        assert_eq!(bits_for(1 << 20), 20);
        assert_eq!(bits_for((1 << 20) + 1), 21);
    }

    #[test]
    fn columns_fill_keys_in_order() {
        assert_eq!(layout(&[0]), vec![vec![(0, 0)]]);
        assert_eq!(layout(&[0, 0]), vec![vec![(0, 0)]]);
        assert_eq!(
            layout(&[30, 30, 4, 1]),
            vec![vec![(0, 0), (1, 30), (2, 60)], vec![(3, 0)]]
        );
        assert_eq!(layout(&[64, 0, 64]), vec![vec![(0, 0)], vec![(2, 0)]]);
        assert_eq!(layout(&[0, 3, 0, 2]), vec![vec![(1, 0), (3, 3)]]);
    }

    #[test]
    fn inline_views_are_the_arrays_views() {
        let a = arrow_array::StringViewArray::from(vec![
            "",
            "Male",
            "exactly12byt",
            "longer than twelve",
        ]);
        assert_eq!(inline_view(b""), Some(a.views()[0]));
        assert_eq!(inline_view(b"Male"), Some(a.views()[1]));
        assert_eq!(inline_view(b"exactly12byt"), Some(a.views()[2]));
        assert_eq!(inline_view(b"longer than twelve"), None);
    }

    /// A pseudo-random stream (xorshift), for rows that vary without a
    /// crate of randomness.
    fn stream(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        }
    }

    fn write_parquet(path: &Path, batch: &RecordBatch) {
        let file = std::fs::File::create(path).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
    }

    fn write_arrow(path: &Path, batch: &RecordBatch) {
        let file = std::fs::File::create(path).unwrap();
        let mut w = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
        w.write(batch).unwrap();
        w.finish().unwrap();
    }

    /// The table of `columns` grouped by values and by codes, which must
    /// be equal.
    fn both(path: &Path, columns: &[&str]) -> (FrequencyTable, FrequencyTable) {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        let opts = CsvOptions::default();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        rt.block_on(async {
            // Several partitions, so the groups are merged across them.
            let ctx = SessionContext::new_with_config(
                SessionConfig::new()
                    .with_target_partitions(3)
                    .with_batch_size(100),
            );
            let table = |g| frequency_table_with(&ctx, "engine", path, &opts, &columns, g);
            let values = table(GroupBy::Values).await.unwrap();
            let codes = table(GroupBy::Codes).await.unwrap();
            (values, codes)
        })
    }

    /// 25 columns of 16 values (100 bits: two keys), text both short
    /// (inline in a view) and long, numbers, nulls, a column of one value,
    /// cells that read as one value (` a` and `a`, `7` and `07`).
    fn wide(rows: usize) -> RecordBatch {
        let mut next = stream(7);
        let mut fields = Vec::new();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for c in 0..25 {
            let cells: Vec<Option<String>> = (0..rows)
                .map(|_| {
                    let v = next(16);
                    match c % 5 {
                        0 => Some(format!("v{v}")),
                        1 => Some(format!("a rather long value number {v}")),
                        2 if v == 0 => None,
                        2 => Some(format!(" {}", v % 8)),
                        3 => Some(format!("{:0w$}", v % 9, w = (v % 2 + 1) as usize)),
                        _ => Some(format!("{v}")),
                    }
                })
                .collect();
            fields.push(Field::new(format!("c{c}"), DataType::Utf8, true));
            arrays.push(Arc::new(StringArray::from(cells)));
        }
        fields.push(Field::new("one", DataType::Utf8, false));
        arrays.push(Arc::new(StringArray::from(vec!["same"; rows])));
        fields.push(Field::new("n", DataType::Int64, true));
        arrays.push(Arc::new(Int64Array::from(
            (0..rows)
                .map(|_| match next(50) {
                    0 => None,
                    v => Some(v as i64 - 25),
                })
                .collect::<Vec<_>>(),
        )));
        let dict: DictionaryArray<arrow_array::types::Int32Type> = (0..rows)
            .map(|_| ["x", "y", "z"][next(3) as usize])
            .collect();
        fields.push(Field::new("d", dict.data_type().clone(), false));
        arrays.push(Arc::new(dict));
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
    }

    fn all_columns(batch: &RecordBatch) -> Vec<String> {
        batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    #[test]
    fn codes_over_two_keys_give_the_table_of_the_values() {
        let dir = tempfile::tempdir().unwrap();
        let batch = wide(3000);
        let names = all_columns(&batch);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for (file, write) in [
            ("t.parquet", write_parquet as fn(&Path, &RecordBatch)),
            ("t.arrow", write_arrow),
        ] {
            let path = dir.path().join(file);
            write(&path, &batch);
            let (values, codes) = both(&path, &names);
            assert_eq!(values.rows(), 3000);
            assert!(values.len() > 2000, "{}", values.len());
            assert_eq!(values, codes, "{file}");
            // A few columns (at most 9 × 1 × 50 × 3 combinations): most
            // combinations stand for several records.
            let (values, codes) = both(&path, &["c2", "one", "n", "d"]);
            assert!(values.len() <= 1350, "{}", values.len());
            assert_eq!(values, codes, "{file}");
        }
    }

    #[test]
    fn the_codes_span_two_keys_and_count_every_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let batch = wide(3000);
        write_parquet(&path, &batch);
        let names = all_columns(&batch);
        let ctx = SessionContext::new();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let groups = rt.block_on(async {
            let df = ctx
                .read_parquet(path.to_str().unwrap(), Default::default())
                .await
                .unwrap();
            coded_groups(&df, &names).await.unwrap()
        });
        let bits: Vec<u32> = groups.values.iter().map(|v| bits_for(v.len())).collect();
        assert!(bits.iter().sum::<u32>() > 64, "{bits:?}");
        assert_eq!(groups.counts.iter().sum::<u64>(), 3000);
        // The column of one value, packed in no key, has index 0.
        let one = names.iter().position(|n| n == "one").unwrap();
        assert_eq!(groups.values[one].len(), 1);
        assert!(groups.indices[one].iter().all(|&i| i == 0));
        // A null is one of the distinct values, with its own code.
        let c2 = names.iter().position(|n| n == "c2").unwrap();
        assert_eq!(groups.values[c2].null_count(), 1);
    }

    #[test]
    fn a_column_of_one_value_alone_is_one_group() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let batch = RecordBatch::try_from_iter([(
            "one",
            Arc::new(StringArray::from(vec!["same"; 10])) as ArrayRef,
        )])
        .unwrap();
        write_parquet(&path, &batch);
        let (values, codes) = both(&path, &["one"]);
        assert_eq!(codes.counts(), [10]);
        assert_eq!(values, codes);
    }

    #[test]
    fn a_file_of_no_records_is_refused_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let batch = RecordBatch::try_from_iter([(
            "a",
            Arc::new(StringArray::from(Vec::<&str>::new())) as ArrayRef,
        )])
        .unwrap();
        write_parquet(&path, &batch);
        let opts = CsvOptions::default();
        let columns = ["a".to_string()];
        let rt = tokio::runtime::Runtime::new().unwrap();
        for g in [GroupBy::Values, GroupBy::Codes] {
            let e = rt
                .block_on(async {
                    let ctx = SessionContext::new();
                    frequency_table_with(&ctx, "engine", &path, &opts, &columns, g).await
                })
                .unwrap_err()
                .to_string();
            assert!(e.contains("the file has no rows"), "{g:?}: {e}");
        }
    }

    #[test]
    fn floating_point_columns_are_grouped_by_their_values() {
        assert!(!codable(&[&DataType::Utf8View, &DataType::Float64]));
        assert!(codable(&[&DataType::Utf8View, &DataType::Int64]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let batch = RecordBatch::try_from_iter([(
            "x",
            Arc::new(Float64Array::from(vec![1.5, -0.0, 0.0, 1.5, f64::NAN])) as ArrayRef,
        )])
        .unwrap();
        write_parquet(&path, &batch);
        let (values, codes) = both(&path, &["x"]);
        assert_eq!(values, codes);
    }
}

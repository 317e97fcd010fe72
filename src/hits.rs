//! The search protocol both indexes speak with `lib/indexes/hits.ts`: one options object in
//! (`NativeSearchOptions`), hits out in columns (`NativeHits`, or for a sync search the ids
//! string alone with the numbers in a buffer the caller reuses: `fill_buffer`). The ids cross
//! joined in one string with UTF-16 end offsets, so JS slices them instead of napi making one
//! string per hit.
use napi::bindgen_prelude::{Either, Utf16String};
use napi_derive::napi;
use ragrank_core::filter::MetaFilter;

use crate::errors::OrNapi;

/// What a search takes besides its query and `topK`, for both indexes. `lib/` checks the
/// types and sends only the options given; the filter's values are checked when it compiles
/// here, and the defaults are these.
#[napi(object)]
pub struct NativeSearchOptions {
    /// Only these ids are searched (unknown ids are ignored).
    pub filter_ids: Option<Vec<String>>,
    /// A metadata filter object (`ragrank_core::filter`), compiled before the search.
    pub filter_meta: Option<serde_json::Value>,
    /// Return stored text and metadata with each hit (default true).
    pub include_fields: Option<bool>,
}

/// `NativeSearchOptions` as a search uses them, the metadata filter compiled (its errors
/// come before any work); the ids stay for the index to turn into its slots.
pub struct Resolved {
    pub ids: Option<Vec<String>>,
    pub meta: Option<MetaFilter>,
    pub include_fields: bool,
}

/// Resolves a search's options (`None`: none given).
pub fn resolve(o: Option<NativeSearchOptions>) -> napi::Result<Resolved> {
    let Some(o) = o else {
        return Ok(Resolved {
            ids: None,
            meta: None,
            include_fields: true,
        });
    };
    Ok(Resolved {
        meta: o
            .filter_meta
            .as_ref()
            .map(|m| MetaFilter::compile(m, "options.filter.meta"))
            .transpose()
            .or_napi()?,
        ids: o.filter_ids,
        include_fields: o.include_fields.unwrap_or(true),
    })
}

/// One hit as the columns take it; `text` and `meta` only when fields are returned.
pub struct Row<'a> {
    pub id: &'a str,
    pub score: f32,
    pub text: Option<&'a str>,
    /// Borrowed from a segment in memory, parsed from a mapped one.
    pub meta: Option<std::borrow::Cow<'a, serde_json::Value>>,
}

impl Row<'_> {
    fn has_fields(&self) -> bool {
        self.text.is_some() || self.meta.is_some()
    }
}

/// Hits in columns, for one search or a whole batch: all ids in one string with their UTF-16
/// end offsets (counted from the first hit), the scores in one array, and per query how many
/// hits are its, in query order. Far cheaper to cross than an object or a string per hit (a
/// batch crosses as a handful of values however many queries it holds); `lib/` slices and
/// zips them into objects. Only ever returned, so no conversion from JS.
#[napi(object, object_from_js = false)]
pub struct NativeHits {
    /// Hits per query; absent for a single search (every row is its).
    #[napi(ts_type = "Uint32Array")]
    pub counts: Option<Column<u32>>,
    /// UTF-16 when any id is not ASCII (encoded here: decoding UTF-8 on the event loop cost more).
    #[napi(ts_type = "string")]
    pub ids: JsString,
    /// Copied into V8's own buffers (`Column`): owned typed arrays cost a finalizer each.
    #[napi(ts_type = "Uint32Array")]
    pub id_ends: Column<u32>,
    #[napi(ts_type = "Float64Array")]
    pub scores: Column<f64>,
    /// Stored text per hit (null where none), when fields were asked for and any hit has one.
    #[napi(ts_type = "Array<string | undefined | null>")]
    pub texts: Option<Vec<Option<JsString>>>,
    /// Metadata per hit (null where none) as one JSON array (see `metas_json`), likewise.
    pub metas_json: Option<String>,
}

impl NativeHits {
    /// The columns of `rows`, every query's hits in query order; `counts`: how many are each
    /// query's, for a batch. One pass: the ids go straight into the string JS receives.
    pub fn new(rows: &[Row], counts: Option<Vec<u32>>) -> Self {
        let mut id_ends = Vec::with_capacity(rows.len());
        let ids = if rows.iter().all(|r| r.id.is_ascii()) {
            let mut ids = String::with_capacity(rows.iter().map(|r| r.id.len()).sum());
            for r in rows {
                ids.push_str(r.id);
                id_ends.push(ids.len() as u32);
            }
            Either::A(ids)
        } else {
            // At most one UTF-16 unit per UTF-8 byte.
            let mut ids: Vec<u16> = Vec::with_capacity(rows.iter().map(|r| r.id.len()).sum());
            for r in rows {
                ids.extend(r.id.encode_utf16());
                id_ends.push(ids.len() as u32);
            }
            Either::B(Utf16String::from(ids))
        };
        let any_text = rows.iter().any(|r| r.text.is_some());
        let any_meta = rows.iter().any(|r| r.meta.is_some());
        NativeHits {
            counts: counts.map(Column),
            ids,
            id_ends: Column(id_ends),
            scores: Column(rows.iter().map(|r| r.score as f64).collect()),
            texts: any_text.then(|| js_texts(rows.iter().map(|r| r.text))),
            metas_json: any_meta.then(|| metas_json(rows.iter().map(|r| r.meta.as_deref()))),
        }
    }
}

/// A sync search's answer: the ids string alone with the numbers in `out` (`fill_buffer`),
/// or `NativeHits` when a hit carries fields or `out` is too short.
pub fn single(rows: &[Row], out: &mut [f64]) -> Either<JsString, NativeHits> {
    if !rows.iter().any(Row::has_fields) {
        if let Some(ids) = fill_buffer(rows.iter().map(|r| (r.id, r.score)), out) {
            return Either::A(js_string(ids));
        }
    }
    Either::B(NativeHits::new(rows, None))
}

/// A string for JS: UTF-8 when ASCII (V8 copies it as one byte per character), else UTF-16,
/// which V8 copies as is. Decoding multi-byte UTF-8 (Korean ids) on the event loop cost more
/// than encoding it here: 8% of a KorQuAD search.
pub fn js_string(s: String) -> Either<String, Utf16String> {
    if s.is_ascii() {
        Either::A(s)
    } else {
        Either::B(Utf16String::from(s))
    }
}

/// What `js_string` makes: a string JS receives without decoding UTF-8.
pub type JsString = Either<String, Utf16String>;

/// Stored texts for JS, one per hit (`None` where a hit has none), each through
/// `js_string`: V8 decodes multi-byte UTF-8 at about 12 ns a character on the event loop
/// (std's UTF-16 encoding here: about 2.5), so ten Korean passages of ~540 characters made
/// a 6 us KorQuAD search cost 88 us (34 us now).
fn js_texts<'a>(texts: impl Iterator<Item = Option<&'a str>>) -> Vec<Option<JsString>> {
    texts.map(|t| t.map(|t| js_string(t.to_owned()))).collect()
}

/// Length of `s` in UTF-16 code units (what JS `slice` counts).
fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// The fast path of a synchronous search, into a buffer the caller reuses (no typed array
/// is made per call): `out[0]` = hit count, then the scores, then the ids' end offsets.
/// Returns the joined ids, or `None` when `out` is too short.
fn fill_buffer<'a>(hits: impl ExactSizeIterator<Item = (&'a str, f32)>, out: &mut [f64]) -> Option<String> {
    let n = hits.len();
    if 1 + 2 * n > out.len() {
        return None;
    }
    out[0] = n as f64;
    // Room for typical ids at once instead of growing by doubling.
    let mut ids = String::with_capacity(n * 16);
    let mut end = 0usize;
    for (i, (id, score)) in hits.enumerate() {
        ids.push_str(id);
        end += utf16_len(id);
        out[1 + i] = score as f64;
        out[1 + n + i] = end as f64;
    }
    Some(ids)
}

/// Hit metadata as one JSON text `[meta, null, ...]`, which `lib/` parses: napi's object
/// building would run the `__proto__` setter, where `JSON.parse` keeps an own key.
fn metas_json<'a>(metas: impl Iterator<Item = Option<&'a serde_json::Value>>) -> String {
    let all: Vec<_> = metas.collect();
    serde_json::to_string(&all).unwrap_or_default()
}

/// A numeric column for JS as a typed array over a copy in an ArrayBuffer V8 allocates.
/// napi-rs's owned typed arrays cross as external ArrayBuffers: each one a boxed finalizer, a
/// weak global handle and a finalizer call on the event loop after the GC, which were about a
/// tenth of the loop's CPU in a one-query batch (three columns per batch). A batch's columns are
/// small, so the copy costs less than any of that.
pub struct Column<T>(pub Vec<T>);

/// The typed array a `Column` element becomes.
pub trait ColumnElement: Copy {
    const KIND: napi::sys::napi_typedarray_type;
}

impl ColumnElement for u32 {
    const KIND: napi::sys::napi_typedarray_type = napi::sys::TypedarrayType::uint32_array;
}

impl ColumnElement for f64 {
    const KIND: napi::sys::napi_typedarray_type = napi::sys::TypedarrayType::float64_array;
}

impl<T: ColumnElement> napi::bindgen_prelude::ToNapiValue for Column<T> {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> napi::Result<napi::sys::napi_value> {
        use napi::sys;
        let bytes = std::mem::size_of_val(val.0.as_slice());
        let mut data = std::ptr::null_mut();
        let mut buffer = std::ptr::null_mut();
        // SAFETY: plain napi calls on the JS thread (napi-rs calls this there); `data` is the
        // new buffer's `bytes` bytes, which nothing else sees yet.
        unsafe {
            napi::check_status!(sys::napi_create_arraybuffer(env, bytes, &mut data, &mut buffer))?;
            if bytes > 0 {
                std::ptr::copy_nonoverlapping(val.0.as_ptr().cast::<u8>(), data.cast::<u8>(), bytes);
            }
            let mut array = std::ptr::null_mut();
            napi::check_status!(sys::napi_create_typedarray(
                env,
                T::KIND,
                val.0.len(),
                buffer,
                0,
                &mut array
            ))?;
            Ok(array)
        }
    }
}

impl<T> napi::bindgen_prelude::TypeName for Column<T> {
    fn type_name() -> &'static str {
        "TypedArray"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::Object
    }
}

/// A stored document as `get` returns it: `{ id, text?, meta? }`, or null for an unknown id.
pub fn stored_document(id: &str, found: Option<(Option<&str>, Option<&serde_json::Value>)>) -> serde_json::Value {
    let Some((text, meta)) = found else {
        return serde_json::Value::Null;
    };
    let mut doc = serde_json::Map::new();
    doc.insert("id".into(), id.into());
    if let Some(text) = text {
        doc.insert("text".into(), text.into());
    }
    if let Some(meta) = meta {
        doc.insert("meta".into(), meta.clone());
    }
    serde_json::Value::Object(doc)
}

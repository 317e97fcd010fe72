//! Hits as `lib/` receives them: the ids joined in one string with UTF-16 end offsets, so
//! JS slices them instead of napi making one string per hit.
use napi::bindgen_prelude::{Either, Utf16String};

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
pub fn js_texts<'a>(texts: impl Iterator<Item = Option<&'a str>>) -> Vec<Option<JsString>> {
    texts.map(|t| t.map(|t| js_string(t.to_owned()))).collect()
}

/// Length of `s` in UTF-16 code units (what JS `slice` counts).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// The fast path of a synchronous search, into a buffer the caller reuses (no typed array
/// is made per call): `out[0]` = hit count, then the scores, then the ids' end offsets.
/// Returns the joined ids, or `None` when `out` is too short.
pub fn fill_buffer<'a>(hits: impl ExactSizeIterator<Item = (&'a str, f32)>, out: &mut [f64]) -> Option<String> {
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
pub fn metas_json<'a>(metas: impl Iterator<Item = Option<&'a serde_json::Value>>) -> String {
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

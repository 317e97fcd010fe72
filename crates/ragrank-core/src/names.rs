//! Options whose value is one of a few names (`variant`, `cjk`, `metric`, ...): one lookup,
//! so every bad name gets the same message, naming the option and listing the choices.
use crate::error::{Error, Result};

/// The value `name` stands for in `table`, or an `InvalidArg` error naming `option`.
pub fn by_name<T: Copy>(option: &str, name: &str, table: &[(&str, T)]) -> Result<T> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v).ok_or_else(|| {
        let choices: Vec<String> = table.iter().map(|(n, _)| format!("'{n}'")).collect();
        Error::invalid(format!("{option} must be one of {}, got {name:?}", choices.join(", ")))
    })
}

/// Implements `TryFrom<String>` for an enum option from its name table, so serde's
/// `#[serde(try_from = "String")]` rejects a bad name with `by_name`'s message.
#[macro_export]
macro_rules! try_from_name {
    ($ty:ty, $option:literal, $table:expr) => {
        impl TryFrom<String> for $ty {
            type Error = $crate::Error;
            fn try_from(name: String) -> $crate::Result<Self> {
                $crate::names::by_name($option, &name, &$table)
            }
        }
    };
}

/// The name of `value` in `table` (the first, where a value has aliases).
pub fn name_of<T: PartialEq>(value: &T, table: &[(&'static str, T)]) -> &'static str {
    table.iter().find(|(_, v)| v == value).map_or("?", |(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_name_or_names_the_option() {
        let table = [("up", 1), ("down", -1)];
        assert_eq!(by_name("options.way", "down", &table).unwrap(), -1);
        let e = by_name("options.way", "left", &table).unwrap_err();
        assert_eq!(e.message, r#"options.way must be one of 'up', 'down', got "left""#);
        assert_eq!(name_of(&1, &table), "up");
    }
}

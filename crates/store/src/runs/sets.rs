//! Column assignments for guarded updates: only the setters called are written.

use sqlx::sqlite::{SqliteArguments, SqliteRow};
use sqlx::{query::Query, Row, Sqlite};

use crate::StoreError;

/// One bound value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Text(String),
    Int(i64),
    Real(f64),
    Null,
}

/// `column = value` pairs, each column at most once (the last setter wins).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sets {
    pub(crate) sets: Vec<(&'static str, Value)>,
}

impl Sets {
    pub(crate) fn set(&mut self, column: &'static str, value: Value) {
        self.sets.retain(|(c, _)| *c != column);
        self.sets.push((column, value));
    }

    /// `, a = ?, b = ?` for the columns set.
    pub(crate) fn sql(&self) -> String {
        let mut sql = String::new();
        for (column, _) in &self.sets {
            sql.push_str(", ");
            sql.push_str(column);
            sql.push_str(" = ?");
        }
        sql
    }

    /// Binds the values in column order.
    pub(crate) fn bind<'q>(
        &self,
        mut query: Query<'q, Sqlite, SqliteArguments<'q>>,
    ) -> Query<'q, Sqlite, SqliteArguments<'q>> {
        for (_, value) in &self.sets {
            query = match value {
                Value::Text(text) => query.bind(text.clone()),
                Value::Int(int) => query.bind(*int),
                Value::Real(real) => query.bind(*real),
                Value::Null => query.bind(None::<String>),
            };
        }
        query
    }
}

pub(crate) fn opt_text(value: Option<String>) -> Value {
    value.map_or(Value::Null, Value::Text)
}

pub(crate) fn opt_int(value: Option<i64>) -> Value {
    value.map_or(Value::Null, Value::Int)
}

/// A non-negative integer column as `u32` (0 for values out of range).
pub(crate) fn u32_of(row: &SqliteRow, column: &str) -> Result<u32, StoreError> {
    let value: i64 = row.try_get(column)?;
    Ok(u32::try_from(value).unwrap_or(0))
}

/// A nullable non-negative integer column as `u32`.
pub(crate) fn opt_u32_of(row: &SqliteRow, column: &str) -> Result<Option<u32>, StoreError> {
    let value: Option<i64> = row.try_get(column)?;
    Ok(value.and_then(|v| u32::try_from(v).ok()))
}

/// A state-like column parsed by `parse`, or `Corrupt` naming the table.
pub(crate) fn parsed<T>(
    row: &SqliteRow,
    column: &str,
    table: &'static str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, StoreError> {
    let text: String = row.try_get(column)?;
    parse(&text).ok_or_else(|| StoreError::Corrupt {
        table,
        detail: format!("unknown {column} {text:?}"),
    })
}

//! One exported file of rows, as CSV (through the `csv` crate, which quotes properly) or JSON
//! (an array of objects), written row by row as the rows come, to a file (the command) or to
//! an HTTP download (`audit::download`).

use std::io::{BufWriter, Write};

pub use keno_api::audit::ExportFormat as Format;

/// A value in a row: CSV writes it as text, JSON keeps its type.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Int(i64),
    Text(String),
    Bool(bool),
    /// Numbers in order (the numbers drawn): space-separated in CSV, an array in JSON.
    Numbers(Vec<i64>),
    Null,
}

impl From<i64> for Cell {
    fn from(v: i64) -> Cell {
        Cell::Int(v)
    }
}

impl From<i32> for Cell {
    fn from(v: i32) -> Cell {
        Cell::Int(v.into())
    }
}

impl From<bool> for Cell {
    fn from(v: bool) -> Cell {
        Cell::Bool(v)
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Cell {
        Cell::Text(v)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Cell {
        Cell::Text(v.to_string())
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Cell {
        v.map_or(Cell::Null, Into::into)
    }
}

impl Cell {
    fn text(&self) -> String {
        match self {
            Cell::Int(v) => v.to_string(),
            Cell::Text(v) => v.clone(),
            Cell::Bool(v) => v.to_string(),
            Cell::Numbers(v) => v
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            Cell::Null => String::new(),
        }
    }
}

impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Int(v) => serializer.serialize_i64(*v),
            Cell::Text(v) => serializer.serialize_str(v),
            Cell::Bool(v) => serializer.serialize_bool(*v),
            Cell::Numbers(v) => v.serialize(serializer),
            Cell::Null => serializer.serialize_none(),
        }
    }
}

enum Out<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Json(BufWriter<W>),
}

/// A file of rows with a fixed header.
pub struct Table<W: Write> {
    /// What the rows are (the export's kind), for errors.
    name: &'static str,
    header: Vec<String>,
    out: Out<W>,
    rows: u64,
}

impl<W: Write> Table<W> {
    /// Starts the file on `out` with its header.
    pub fn new(
        out: W,
        name: &'static str,
        format: Format,
        header: Vec<String>,
    ) -> anyhow::Result<Table<W>> {
        let out = match format {
            Format::Csv => {
                let mut w = csv::Writer::from_writer(out);
                w.write_record(&header)?;
                Out::Csv(Box::new(w))
            }
            Format::Json => {
                let mut w = BufWriter::new(out);
                w.write_all(b"[")?;
                Out::Json(w)
            }
        };
        Ok(Table {
            name,
            header,
            out,
            rows: 0,
        })
    }

    pub fn row(&mut self, cells: Vec<Cell>) -> anyhow::Result<()> {
        anyhow::ensure!(
            cells.len() == self.header.len(),
            "{}: a row of {} cells under {} columns",
            self.name,
            cells.len(),
            self.header.len()
        );
        match &mut self.out {
            Out::Csv(w) => w.write_record(cells.iter().map(Cell::text))?,
            Out::Json(w) => {
                w.write_all(if self.rows == 0 { b"\n" } else { b",\n" })?;
                serde_json::to_writer(&mut *w, &Object(&self.header, &cells))?;
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Ends the file and flushes it; the number of rows written.
    pub fn finish(self) -> anyhow::Result<u64> {
        match self.out {
            Out::Csv(mut w) => w.flush()?,
            Out::Json(mut w) => {
                w.write_all(b"\n]\n")?;
                w.flush()?;
            }
        }
        Ok(self.rows)
    }
}

/// A row as a JSON object, its keys in the header's order.
struct Object<'a>(&'a [String], &'a [Cell]);

impl serde::Serialize for Object<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, cell) in self.0.iter().zip(self.1) {
            map.serialize_entry(key, cell)?;
        }
        map.end()
    }
}

/// Column names from static strings.
pub fn columns(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(format: Format) -> String {
        let mut bytes = Vec::new();
        let mut t = Table::new(&mut bytes, "t", format, columns(&["a", "b", "c", "d"])).unwrap();
        t.row(vec![
            1.into(),
            "fire, \"alarm\"".into(),
            Cell::Numbers(vec![4, 11]),
            Cell::Null,
        ])
        .unwrap();
        t.row(vec![
            2.into(),
            true.into(),
            Cell::Numbers(vec![]),
            "x".into(),
        ])
        .unwrap();
        assert!(t.row(vec![3.into()]).is_err(), "a short row is refused");
        assert_eq!(t.finish().unwrap(), 2);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn csv_quotes_and_json_keeps_types_and_column_order() {
        assert_eq!(
            write(Format::Csv),
            "a,b,c,d\n1,\"fire, \"\"alarm\"\"\",4 11,\n2,true,,x\n"
        );
        let json = write(Format::Json);
        assert!(
            json.contains(r#"{"a":1,"b":"fire, \"alarm\"","c":[4,11],"d":null}"#),
            "{json}"
        );
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            rows[1],
            serde_json::json!({"a": 2, "b": true, "c": [], "d": "x"})
        );
    }
}

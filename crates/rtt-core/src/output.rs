//! The log files a run leaves behind, `STEM.csv` and `STEM.json`: opened before measuring, so an
//! unwritable `--out` fails at once instead of after the run, and written only once it is over.
//! What goes in them is defined in `log`; the human summary is in `summary`. A micro-benchmark
//! writes `STEM.json` alone ([`JsonFile`]).

use std::{
    fs::{self, File},
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
};

use anyhow::Context;

use crate::log::Log;

/// What a finished run has to show, whatever its kind: the ping prints and writes it.
pub trait Outcome: Send + 'static {
    /// The JSON log, from which the human summary is made too.
    fn log(&self) -> &Log;
    /// The CSV log, header first.
    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()>;
}

/// The two log files of a run, opened before it starts.
pub struct LogFiles {
    csv: (PathBuf, File),
    json: (PathBuf, File),
}

impl LogFiles {
    /// Creates `STEM.csv` and `STEM.json` (and their folder).
    pub fn create(stem: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .with_context(|| format!("creating the log folder {}", dir.display()))?;
        }
        let open = |extension: &str| -> anyhow::Result<(PathBuf, File)> {
            let path = with_extension(stem, extension);
            let file = File::create(&path)
                .with_context(|| format!("creating {} (check --out)", path.display()))?;
            Ok((path, file))
        };
        Ok(Self {
            csv: open("csv")?,
            json: open("json")?,
        })
    }

    /// Writes the run's CSV and JSON logs.
    /// The two files' paths, for whoever must remove them if the run never writes them.
    pub fn paths(&self) -> [PathBuf; 2] {
        [self.csv.0.clone(), self.json.0.clone()]
    }

    pub fn write(self, outcome: &dyn Outcome) -> anyhow::Result<()> {
        let (csv_path, csv_file) = self.csv;
        let mut csv_out = BufWriter::with_capacity(1 << 20, csv_file);
        outcome
            .write_csv(&mut csv_out)
            .and_then(|()| csv_out.flush())
            .with_context(|| format!("writing {}", csv_path.display()))?;
        let (json_path, json_file) = self.json;
        let mut json_out = BufWriter::new(json_file);
        serde_json::to_writer_pretty(&mut json_out, outcome.log())
            .map_err(io::Error::from)
            .and_then(|()| writeln!(json_out))
            .and_then(|()| json_out.flush())
            .with_context(|| format!("writing {}", json_path.display()))
    }
}

/// `STEM.json` alone, opened before the run starts.
pub struct JsonFile {
    path: PathBuf,
    file: File,
}

impl JsonFile {
    /// Creates `STEM.json` (and its folder).
    pub fn create(stem: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .with_context(|| format!("creating the log folder {}", dir.display()))?;
        }
        let path = with_extension(stem, "json");
        let file = File::create(&path)
            .with_context(|| format!("creating {} (check --out)", path.display()))?;
        Ok(Self { path, file })
    }

    /// Writes `log`, pretty-printed.
    pub fn write(self, log: &Log) -> anyhow::Result<()> {
        let mut out = BufWriter::new(self.file);
        serde_json::to_writer_pretty(&mut out, log)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// `stem` + `.extension`, keeping any dots already in the stem (`tokio-tcp-64B-0.001s-0t`).
fn with_extension(stem: &Path, extension: &str) -> PathBuf {
    let mut path = stem.as_os_str().to_owned();
    path.push(".");
    path.push(extension);
    PathBuf::from(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_with_dots_keep_them() {
        let path = with_extension(Path::new("logs/tokio-udp-64B-0.001s-0t"), "json");
        assert_eq!(path, PathBuf::from("logs/tokio-udp-64B-0.001s-0t.json"));
    }
}

//! The archive as files to download: each year's incidents (JSON Lines and CSV) and
//! updates (JSON Lines), the schemas of their rows, and the page that says what they hold.

use std::ops::Range;

use super::*;
use crate::render::exports;
use crate::routes::DataFile;

/// A year's data file.
pub(crate) struct DataExport;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Export {
    pub(crate) year: i32,
    pub(crate) file: DataFile,
}

/// The years incidents started in, newest first: every incident is in one year's files.
/// A run a year, found by binary search: no walk of the archive.
pub(super) fn data_years(archive: &Archive) -> Vec<i32> {
    let all = &archive.incidents;
    let mut years = Vec::new();
    let mut at = 0;
    while let Some(incident) = all.get(at) {
        let year = incident.started.year();
        years.push(year);
        at += all[at..].partition_point(|i| i.started.year() >= year);
    }
    years
}

/// The positions of the incidents that started in `year` in the list of every incident
/// (newest first): one run of it.
pub(super) fn year_of(archive: &Archive, year: i32) -> Range<usize> {
    year_positions(&archive.incidents, year, |i| i.started.year())
}

impl Kind for DataExport {
    type Key = Export;

    fn plan(&self, &Planning { archive, .. }: &Planning, add: &mut dyn FnMut(String, Export)) {
        for year in data_years(archive) {
            for file in DataFile::ALL {
                add(routes::data_file(year, file), Export { year, file });
            }
        }
    }

    fn reads(&self, archive: &Archive, key: Export) -> Reads {
        let run = year_of(archive, key.year);
        let list = Some((run.start, run.end));
        match key.file {
            DataFile::IncidentsJsonl | DataFile::IncidentsCsv => Reads { list, ..NOTHING },
            DataFile::UpdatesJsonl => Reads {
                list,
                texts: list,
                ..NOTHING
            },
        }
    }

    fn render(&self, r: &Renderer, _: &Page, key: Export) -> Result<Vec<u8>, Diagnostic> {
        let run = year_of(r.archive, key.year);
        let incidents: Vec<&IncidentView> = IncidentIx::all(run.end)
            .skip(run.start)
            .map(|i| &*r.views.incidents[i])
            .collect();
        Ok(match key.file {
            DataFile::IncidentsJsonl => exports::incidents_jsonl(&incidents, &r.config.base_url),
            DataFile::IncidentsCsv => exports::incidents_csv(&incidents),
            DataFile::UpdatesJsonl => exports::updates_jsonl(&incidents),
        })
    }
}

/// A year of the data page: its incidents, and a link to each of its files.
#[derive(serde::Serialize)]
struct DataYear {
    year: i32,
    incidents: usize,
    incidents_jsonl: String,
    incidents_csv: String,
    updates_jsonl: String,
}

/// `data/`: what each file holds, the year's files, and whose text it is.
pub(super) fn data_page(r: &Renderer, page: &Page) -> Result<Vec<u8>, Diagnostic> {
    let base = &r.config.base_url;
    let years: Vec<DataYear> = data_years(r.archive)
        .into_iter()
        .map(|year| {
            let file = |file| base.path(&routes::data_file(year, file));
            DataYear {
                year,
                incidents: year_of(r.archive, year).len(),
                incidents_jsonl: file(DataFile::IncidentsJsonl),
                incidents_csv: file(DataFile::IncidentsCsv),
                updates_jsonl: file(DataFile::UpdatesJsonl),
            }
        })
        .collect();
    let mut ctx = r.html_context(
        "data",
        "The archive as data",
        format!(
            "Every incident and update of the {} as JSON Lines and CSV, a file per year.",
            r.config.title
        ),
        routes::DATA_DIR,
        &FeedLinks::new(base, ""),
        "All incidents",
    );
    ctx.insert("years", &years);
    ctx.insert("incident_total", &r.archive.incidents.len());
    ctx.insert("columns", &exports::CSV_COLUMNS);
    ctx.insert("incident_schema", &base.path(routes::DATA_INCIDENT_SCHEMA));
    ctx.insert("update_schema", &base.path(routes::DATA_UPDATE_SCHEMA));
    ctx.insert("api_page", &base.path(routes::API_PAGE_DIR));
    r.template("data.html", page, &ctx)
}

//! A database of the test's own on the throwaway PostgreSQL cluster the
//! test command starts (`scripts/postgres.sh`, whose URL `scripts/e2e.sh`
//! puts in `CROUPIER_TEST_POSTGRES`).

/// Where the test command's cluster is, if it started one.
pub const CLUSTER_URL: &str = "CROUPIER_TEST_POSTGRES";

/// A new, empty database on the test cluster, dropped with it. `None` where
/// no cluster was started (`cargo test` run by hand): the test says that it
/// passes over. Under `scripts/e2e.sh` there is always one.
pub struct Database {
    url: String,
    cluster: String,
    name: String,
}

impl Database {
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.cluster, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}

/// A new database for the test called `test` (letters, digits and `_`).
pub fn database(test: &str) -> Option<Database> {
    let Ok(cluster) = std::env::var(CLUSTER_URL) else {
        eprintln!("{test}: no PostgreSQL cluster ({CLUSTER_URL} is not set; scripts/e2e.sh starts one), so this test passes over");
        return None;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!("{}_{}_{nanos}", test.to_lowercase(), std::process::id());
    let mut client = postgres::Client::connect(&cluster, postgres::NoTls)
        .map_err(|e| format!("{cluster}: {e}"))
        .expect("the test cluster answers");
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .map_err(|e| format!("{name}: {e}"))
        .expect("a database of the test's own");
    let base = cluster.rsplit_once('/').map_or(cluster.as_str(), |(base, _)| base);
    Some(Database {
        url: format!("{base}/{name}"),
        cluster,
        name,
    })
}

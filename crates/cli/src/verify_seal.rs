//! What `croupier verify` and `croupier recover` check under the secret: each
//! entry's MAC as the pass over the journal read it, the seal, and the head
//! kept beside the secret; and from them, the newest entry the secret vouches
//! for ([`croupier_ledger::macs`]), the most a recovery may keep.

use croupier_ledger::{check_head, check_seal, MacCheck, Opened};
use croupier_server::runtime::keys::{read_head, Keys};
use serde::Serialize;

use crate::{Failure, Invalid};

#[derive(Serialize)]
pub(crate) struct SealCheck {
    /// Whether the secret was found, so the seal and the entries' MACs could be checked.
    pub(crate) checked: bool,
    /// Where the secret was looked for.
    pub(crate) keys: String,
    /// The first entry whose MAC does not hold (or is missing), else what is
    /// wrong with the seal or the head kept beside the secret.
    pub(crate) problem: Option<String>,
    /// The newest entry the secret vouches for, with every entry before it:
    /// the newest whose MAC holds, or the seal's or the head's entry, within
    /// the chain as it holds from the first entry (0: none; `None`: not checked).
    pub(crate) vouched_through: Option<u64>,
    /// The first entry read that carries a MAC: the entries before it were
    /// written before entries carried MACs, and are vouched for only through a later one.
    pub(crate) macs_from: Option<u64>,
    /// The first entry whose MAC does not hold, or is missing, and why.
    #[serde(skip)]
    pub(crate) mac_problem: Option<String>,
    /// The journal's last entry and the entry past it that a seal or the head
    /// made with the secret names: entries taken out of the database.
    #[serde(skip)]
    pub(crate) sealed_beyond: Option<(u64, u64)>,
}

/// What a pass over the journal read of its chain and, with the secret, of
/// its entries' MACs: where the secret's check starts from.
pub(crate) struct ChainRead {
    /// The last entry the chain holds to, from the first entry read.
    pub(crate) through: u64,
    /// The entries' MACs, each checked once the chain took its entry (with the secret).
    pub(crate) macs: Option<MacCheck>,
}

/// The entries' MACs as the pass over the journal read them (`chain`), the
/// journal's seal and the head kept beside the secret, against the journal
/// as stored (every entry, including any that no longer reads); and what the
/// secret vouches for.
pub(crate) fn check_sealed(
    storage: &mut Opened,
    keys_dir: &std::path::Path,
    head: Option<&std::path::Path>,
    chain: &ChainRead,
) -> Result<SealCheck, Failure> {
    let mut check = SealCheck {
        checked: false,
        keys: keys_dir.display().to_string(),
        problem: None,
        vouched_through: None,
        macs_from: None,
        mac_problem: None,
        sealed_beyond: None,
    };
    let Some(keys) = Keys::read(keys_dir).map_err(Invalid::one)? else {
        return Ok(check);
    };
    check.checked = true;
    let key = keys.journal_key();
    // A last hash that no longer reads is the chain's to report.
    let last = storage.last().ok().flatten();
    let seal = storage.seal().map_err(|e| anyhow::anyhow!("{e}"))?;
    let head_path = head.map_or_else(|| keys.head_path(), std::path::Path::to_path_buf);
    let kept_head = read_head(&head_path);
    // The first MAC that fails names the entry a forgery begins at; the seal
    // and the head name only the journal's end.
    let mac_problem = chain.macs.as_ref().and_then(|m| m.problem()).map(|p| p.to_string());
    let mut problem = mac_problem.clone();
    if problem.is_none() {
        problem = check_seal(seal.as_ref(), last, &key).err().map(|p| p.to_string());
    }
    if problem.is_none() {
        if head.is_some() && !head_path.is_file() {
            return Err(Invalid::one(format!("no journal head at {}", head_path.display())).into());
        }
        if let Some(head) = kept_head.as_ref().map_err(|e| Invalid::one(e.clone()))? {
            let hash_of = |seq: u64| storage.hash_of(seq).ok().flatten();
            problem = check_head(head, last.map(|(seq, _)| seq), &key, hash_of)
                .err()
                .map(|p| p.to_string());
        }
    }
    // A seal or a head made with the secret on an entry the chain reaches
    // vouches for it as a MAC does (the entries written before MACs have only those).
    let mut vouched = chain.macs.as_ref().map_or(0, MacCheck::vouched);
    for made in seal.iter().chain(kept_head.iter().flatten()) {
        if made.seq <= chain.through
            && made.seq > vouched
            && made.made_with(&key)
            && storage.hash_of(made.seq).ok().flatten() == Some(made.hash)
        {
            vouched = made.seq;
        }
    }
    // A seal is written with its entries, and the head only after them: one
    // the secret made on an entry past the journal's end says entries were
    // taken out, never that they were damaged.
    let end = last.map_or(0, |(seq, _)| seq);
    check.sealed_beyond = seal
        .iter()
        .chain(kept_head.iter().flatten())
        .filter(|made| made.seq > end && made.made_with(&key))
        .map(|made| (end, made.seq))
        .max_by_key(|(_, sealed)| *sealed);
    check.problem = problem;
    check.mac_problem = mac_problem;
    check.vouched_through = Some(vouched);
    check.macs_from = chain.macs.as_ref().and_then(MacCheck::first);
    Ok(check)
}

/// Why entries that read and chain are not vouched for by the secret: a MAC
/// that failed, or entries written before entries carried MACs.
pub(crate) fn unvouched_why(seal: &SealCheck) -> String {
    match (&seal.mac_problem, seal.macs_from) {
        (Some(p), _) => p.clone(),
        (_, Some(first)) => format!(
            "they were written before entries carried MACs, which begin at entry {first}, and neither the seal nor the \
             head kept beside the secret is at one of them"
        ),
        (_, None) => "they were written before entries carried MACs, and neither the seal nor the head kept beside \
                      the secret is at one of them"
            .into(),
    }
}

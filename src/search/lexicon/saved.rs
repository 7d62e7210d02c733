//! A lexicon kept between processes: a build with the cache saves the words it asked
//! Pagefind about in its folder, and the next build of the same program takes them back.

use std::borrow::Cow;
use std::sync::RwLock;

use foldhash::HashMap;

use super::{Kept, Known, Lexicon};

impl Lexicon {
    /// How many words it knows.
    pub(crate) fn count(&self) -> usize {
        let known = self.known.read().unwrap_or_else(|e| e.into_inner());
        known.text.len() + known.meta.len()
    }

    /// Every word it knows, to be given back to [`Lexicon::restored`] by a later process
    /// of this very program, with a hash of it after it.
    pub(crate) fn saved(&self) -> Vec<u8> {
        let known = self.known.read().unwrap_or_else(|e| e.into_inner());
        fn words(map: &HashMap<Box<str>, Box<[Kept]>>) -> Vec<(&str, Cow<'_, [Kept]>)> {
            let mut words: Vec<(&str, Cow<[Kept]>)> = (map.iter())
                .map(|(word, kept)| (&**word, Cow::Borrowed(&**kept)))
                .collect();
            words.sort_unstable_by_key(|(word, _)| *word);
            words
        }
        let saved = Saved {
            program: *crate::cache::program(),
            language: &self.language,
            stems: known.stems.names.iter().map(|name| &**name).collect(),
            forms: known.forms.names.iter().map(|name| &**name).collect(),
            text: words(&known.text),
            meta: words(&known.meta),
        };
        let mut bytes = postcard::to_allocvec(&saved).unwrap_or_default();
        let hash = blake3::hash(&bytes);
        bytes.extend_from_slice(hash.as_bytes());
        bytes
    }

    /// The lexicon [`Lexicon::saved`] gave: `None` if it was saved by another program, or
    /// is damaged (its hash is not that of the rest, or what it says does not hold).
    pub(crate) fn restored(bytes: &[u8]) -> Option<Lexicon> {
        let (body, hash) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
        if blake3::hash(body).as_bytes() != hash {
            return None;
        }
        let saved: Saved = postcard::from_bytes(body).ok()?;
        if saved.program != *crate::cache::program() {
            return None;
        }
        let mut known = Known::default();
        for (names, into) in [
            (&saved.stems, &mut known.stems),
            (&saved.forms, &mut known.forms),
        ] {
            for name in names {
                into.number(name);
            }
            // Each name once, or a number would stand for two.
            if into.names.len() != names.len() {
                return None;
            }
        }
        let (stems, forms) = (known.stems.names.len(), known.forms.names.len());
        let fits = |kept: &[Kept]| {
            kept.iter().all(|k| {
                (k.stem as usize) < stems && k.form.is_none_or(|form| (form as usize) < forms)
            })
        };
        for (words, into) in [(saved.text, &mut known.text), (saved.meta, &mut known.meta)] {
            for (word, kept) in words {
                if !fits(&kept) {
                    return None;
                }
                into.insert(word.into(), kept.into_owned().into_boxed_slice());
            }
        }
        Some(Lexicon {
            language: saved.language.to_string(),
            known: RwLock::new(known),
        })
    }
}

/// A lexicon as the build cache keeps it: made by `program`, every word with its tokens.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved<'a> {
    program: [u8; 32],
    language: &'a str,
    #[serde(borrow)]
    stems: Vec<&'a str>,
    #[serde(borrow)]
    forms: Vec<&'a str>,
    #[serde(borrow)]
    text: Vec<(&'a str, Cow<'a, [Kept]>)>,
    #[serde(borrow)]
    meta: Vec<(&'a str, Cow<'a, [Kept]>)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::lexicon::Lexicon;

    #[test]
    fn a_lexicon_given_back_reads_every_word_as_the_one_saved() {
        let lexicon = Lexicon::new("en");
        let text = ["Failures", "three-antelopes", "caf\u{e9}", "failing"];
        let meta = ["v1.2", "API"];
        let asked = lexicon.vocabulary(&text, &meta).unwrap();
        let saved = lexicon.saved();
        let restored = Lexicon::restored(&saved).unwrap();
        assert_eq!(restored.count(), lexicon.count());
        assert_eq!(restored.language(), "en");
        let again = restored.vocabulary(&text, &meta).unwrap();
        assert_eq!((&asked.stems, &asked.forms), (&again.stems, &again.forms));
        for word in text {
            assert_eq!(asked.text(word), again.text(word), "{word}");
        }
        for word in meta {
            assert_eq!(asked.meta(word), again.meta(word), "{word}");
        }
        assert!(!again.stems.is_empty() && !again.forms.is_empty());

        // Cut short, a byte changed, another program's, or numbering a stem it does not
        // have: not taken.
        assert!(Lexicon::restored(&saved[..saved.len() / 2]).is_none());
        assert!(Lexicon::restored(&[]).is_none());
        let mut changed = saved.clone();
        changed[40] ^= 1;
        assert!(Lexicon::restored(&changed).is_none());
        let sealed = |saved: &Saved| {
            let mut bytes = postcard::to_allocvec(saved).unwrap();
            bytes.extend_from_slice(blake3::hash(&bytes).as_bytes());
            bytes
        };
        let stray = [Kept {
            stem: 7,
            form: None,
            weight: 1,
        }];
        let mut forged = Saved {
            program: *crate::cache::program(),
            language: "en",
            stems: vec!["fail"],
            forms: Vec::new(),
            text: vec![("failing", Cow::Borrowed(&stray[..]))],
            meta: Vec::new(),
        };
        assert!(
            Lexicon::restored(&sealed(&forged)).is_none(),
            "a stem out of range"
        );
        forged.text.clear();
        assert!(
            Lexicon::restored(&sealed(&forged)).is_some(),
            "the same, in range"
        );
        forged.program[0] ^= 1;
        assert!(
            Lexicon::restored(&sealed(&forged)).is_none(),
            "another program's"
        );
    }
}

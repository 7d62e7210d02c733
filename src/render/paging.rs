//! Lists cut into pages: how many pages a list makes, which of its items a page shows, and
//! which page shows an item. Every list that pages (all incidents, a provider's year, a
//! component's) is cut here, so that the plan, the pages, their pagers and the sitemap
//! agree on where each incident is.

use std::ops::{Range, RangeInclusive};

/// How many incidents a page of a list shows.
pub const PER_PAGE: usize = 100;

/// A list of `items` cut into pages of [`PER_PAGE`], numbered from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paged {
    items: usize,
}

impl Paged {
    pub(crate) fn new(items: usize) -> Paged {
        Paged { items }
    }

    /// How many pages: one at least, so that an empty list still has its page.
    pub(crate) fn pages(self) -> usize {
        self.items.div_ceil(PER_PAGE).max(1)
    }

    /// Every page's number, first to last.
    pub(crate) fn numbers(self) -> RangeInclusive<usize> {
        1..=self.pages()
    }

    /// The positions page `n` has room for, whatever the list holds: what the page reads,
    /// so that an item added to its end is seen.
    pub(crate) fn window(n: usize) -> Range<usize> {
        let start = n.saturating_sub(1).saturating_mul(PER_PAGE);
        start..start.saturating_add(PER_PAGE)
    }

    /// The items page `n` shows, as positions in the list (none past its end).
    pub(crate) fn items_of(self, n: usize) -> Range<usize> {
        let window = Paged::window(n);
        window.start.min(self.items)..window.end.min(self.items)
    }

    /// The page that shows the item at `position`.
    pub(crate) fn page_of(position: usize) -> usize {
        position / PER_PAGE + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_on_exactly_one_page_and_that_page_says_so() {
        for items in [0, 1, PER_PAGE - 1, PER_PAGE, PER_PAGE + 1, 3 * PER_PAGE + 7] {
            let paged = Paged::new(items);
            let mut seen = Vec::new();
            for n in paged.numbers() {
                let shown = paged.items_of(n);
                assert!(shown.len() <= PER_PAGE);
                assert!(n == 1 || !shown.is_empty(), "no empty page after the first");
                for position in shown {
                    assert_eq!(Paged::page_of(position), n);
                    seen.push(position);
                }
            }
            assert_eq!(seen, (0..items).collect::<Vec<_>>(), "{items} items");
        }
        assert_eq!(Paged::new(0).pages(), 1, "an empty list has its page");
        assert_eq!(Paged::new(250).items_of(3), 200..250);
        assert_eq!(Paged::new(250).items_of(4), 250..250);
        assert_eq!(Paged::window(3), 200..300);
        assert_eq!(
            Paged::window(0),
            0..PER_PAGE,
            "no page 0: read as the first"
        );
    }
}

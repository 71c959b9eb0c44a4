//! A fixed-length slice whose first element starts a cache line.
//!
//! The transposition table is probed at random slots, and nearly every probe misses the cache.
//! A `Vec` is only as aligned as its element: a Congo entry is 64 bytes aligned to 16, so a
//! table from the C library's `mmap` (a 16-byte header before the data) put every entry across
//! two cache lines, two misses per probe. Here the memory starts a line, so an entry of a line's
//! size fills exactly one, and smaller ones straddle as few lines as their size allows.

use std::alloc::{self, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// A cache line's size on the machines arbiter runs on (x86-64, AArch64).
pub const LINE_BYTES: usize = 64;

/// `len` values of `T` in one allocation aligned to [`LINE_BYTES`].
pub struct LineAligned<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: LineAligned owns its values as a Box<[T]> would.
unsafe impl<T: Copy + Send> Send for LineAligned<T> {}
// SAFETY: shared access only reads, as through &[T].
unsafe impl<T: Copy + Sync> Sync for LineAligned<T> {}

impl<T: Copy> LineAligned<T> {
    /// `len` copies of `value` (at least one slot; an impossible size aborts as `Vec` would).
    pub fn new(len: usize, value: T) -> LineAligned<T> {
        let len = len.max(1);
        let layout = Self::layout(len);
        if layout.size() == 0 {
            return LineAligned { ptr: NonNull::dangling(), len };
        }
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { alloc::alloc(layout) }.cast::<T>();
        let Some(ptr) = NonNull::new(raw) else { alloc::handle_alloc_error(layout) };
        for i in 0..len {
            // SAFETY: i < len, within the allocation of len values.
            unsafe { ptr.as_ptr().add(i).write(value) };
        }
        LineAligned { ptr, len }
    }

    fn layout(len: usize) -> Layout {
        match Layout::array::<T>(len).and_then(|l| l.align_to(LINE_BYTES)) {
            Ok(layout) => layout,
            Err(_) => panic!("capacity overflow: {len} slots"),
        }
    }
}

impl<T: Copy> Deref for LineAligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr holds len initialised values (or is dangling for a zero-sized T).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> DerefMut for LineAligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in deref, and &mut self is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for LineAligned<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len);
        if layout.size() != 0 {
            // SAFETY: allocated in `new` with this very layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_a_cache_line_and_holds_its_values() {
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Wide(u128, u64);
        for len in [1, 3, 1024, 1 << 18] {
            let mut slots = LineAligned::new(len, Wide(7, 1));
            assert_eq!(slots.as_ptr() as usize % LINE_BYTES, 0);
            assert_eq!(slots.len(), len);
            assert!(slots.iter().all(|&w| w == Wide(7, 1)));
            slots[len - 1] = Wide(2, 3);
            assert_eq!(slots[len - 1], Wide(2, 3));
        }
        assert_eq!(LineAligned::new(0, 5u8).len(), 1);
        assert_eq!(LineAligned::new(4, ()).len(), 4);
    }
}

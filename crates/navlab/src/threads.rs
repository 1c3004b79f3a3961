//! A stand-in for the part of rayon's API the build uses, for builds without the `rayon`
//! feature: each "parallel" iterator is the plain one and the pool has one thread, so the
//! stages take their in-order paths (the output never depends on the choice).

/// One thread: the stages' [`Split`](crate::recast::parallel) stays on the caller's.
pub fn current_num_threads() -> usize {
    1
}

/// The traits rayon's prelude brings, each giving back the standard iterator.
pub mod prelude {
    /// `into_par_iter`: the plain `into_iter`.
    pub trait IntoParallelIterator {
        type Item;
        type Iter: Iterator<Item = Self::Item>;
        fn into_par_iter(self) -> Self::Iter;
    }

    impl<I: IntoIterator> IntoParallelIterator for I {
        type Item = I::Item;
        type Iter = I::IntoIter;
        fn into_par_iter(self) -> I::IntoIter {
            self.into_iter()
        }
    }

    /// `par_iter`, `par_chunks`: the plain `iter` and `chunks`.
    pub trait ParallelSlice<T> {
        fn par_iter(&self) -> std::slice::Iter<'_, T>;
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T>;
    }

    impl<T> ParallelSlice<T> for [T] {
        fn par_iter(&self) -> std::slice::Iter<'_, T> {
            self.iter()
        }
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T> {
            self.chunks(size)
        }
    }

    /// `par_chunks_mut`: the plain `chunks_mut`.
    pub trait ParallelSliceMut<T> {
        fn par_chunks_mut(&mut self, size: usize) -> std::slice::ChunksMut<'_, T>;
    }

    impl<T> ParallelSliceMut<T> for [T] {
        fn par_chunks_mut(&mut self, size: usize) -> std::slice::ChunksMut<'_, T> {
            self.chunks_mut(size)
        }
    }

    /// `map_init`: one state for the whole (single) run.
    pub trait ParallelIterator: Iterator + Sized {
        fn map_init<S, R>(
            self,
            init: impl Fn() -> S,
            map: impl Fn(&mut S, Self::Item) -> R,
        ) -> impl Iterator<Item = R> {
            let mut state = init();
            self.map(move |item| map(&mut state, item))
        }
    }

    impl<I: Iterator> ParallelIterator for I {}
}

//! The build context: a log and per-stage timers, as Recast's `rcContext` and RecastDemo's
//! `duLogBuildTimes` provide them.

use std::time::{Duration, Instant};

/// How serious a log entry is (Recast's `rcLogCategory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogCategory {
    /// What the build is doing (`RC_LOG_PROGRESS`).
    Progress,
    /// Something odd that did not stop it (`RC_LOG_WARNING`).
    Warning,
    /// What stopped a stage (`RC_LOG_ERROR`).
    Error,
}

/// One line of the build log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// How serious it is.
    pub category: LogCategory,
    /// The line, in Recast's words.
    pub message: String,
}

/// The timed parts of a build, with Recast's `rcTimerLabel` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerLabel {
    /// The whole build (`RC_TIMER_TOTAL`).
    Total,
    /// Scratch timing (`RC_TIMER_TEMP`).
    Temp,
    /// `rcRasterizeTriangles`.
    RasterizeTriangles,
    /// `rcBuildCompactHeightfield`.
    BuildCompactHeightfield,
    /// `rcBuildContours`.
    BuildContours,
    /// Tracing region outlines in `rcBuildContours`.
    BuildContoursTrace,
    /// Simplifying the outlines in `rcBuildContours`.
    BuildContoursSimplify,
    /// `rcFilterLedgeSpans`.
    FilterBorder,
    /// `rcFilterWalkableLowHeightSpans`.
    FilterWalkable,
    /// `rcMedianFilterWalkableArea`.
    MedianArea,
    /// `rcFilterLowHangingWalkableObstacles`.
    FilterLowObstacles,
    /// `rcBuildPolyMesh`.
    BuildPolyMesh,
    /// `rcMergePolyMeshes`.
    MergePolyMesh,
    /// `rcErodeWalkableArea`.
    ErodeArea,
    /// `rcMarkBoxArea`.
    MarkBoxArea,
    /// `rcMarkCylinderArea`.
    MarkCylinderArea,
    /// `rcMarkConvexPolyArea`.
    MarkConvexPolyArea,
    /// `rcBuildDistanceField`.
    BuildDistanceField,
    /// Computing distances in `rcBuildDistanceField`.
    BuildDistanceFieldDist,
    /// Blurring distances in `rcBuildDistanceField`.
    BuildDistanceFieldBlur,
    /// `rcBuildRegions` (any partition).
    BuildRegions,
    /// The watershed passes of `rcBuildRegions`.
    BuildRegionsWatershed,
    /// Expanding regions in `rcBuildRegions`.
    BuildRegionsExpand,
    /// Flooding regions in `rcBuildRegions`.
    BuildRegionsFlood,
    /// Filtering small regions in `rcBuildRegions`.
    BuildRegionsFilter,
    /// `rcBuildHeightfieldLayers`.
    BuildLayers,
    /// `rcBuildPolyMeshDetail`.
    BuildPolyMeshDetail,
    /// `rcMergePolyMeshDetails`.
    MergePolyMeshDetail,
}

impl TimerLabel {
    /// Every label, in Recast's enum order.
    pub const ALL: [TimerLabel; 28] = [
        TimerLabel::Total,
        TimerLabel::Temp,
        TimerLabel::RasterizeTriangles,
        TimerLabel::BuildCompactHeightfield,
        TimerLabel::BuildContours,
        TimerLabel::BuildContoursTrace,
        TimerLabel::BuildContoursSimplify,
        TimerLabel::FilterBorder,
        TimerLabel::FilterWalkable,
        TimerLabel::MedianArea,
        TimerLabel::FilterLowObstacles,
        TimerLabel::BuildPolyMesh,
        TimerLabel::MergePolyMesh,
        TimerLabel::ErodeArea,
        TimerLabel::MarkBoxArea,
        TimerLabel::MarkCylinderArea,
        TimerLabel::MarkConvexPolyArea,
        TimerLabel::BuildDistanceField,
        TimerLabel::BuildDistanceFieldDist,
        TimerLabel::BuildDistanceFieldBlur,
        TimerLabel::BuildRegions,
        TimerLabel::BuildRegionsWatershed,
        TimerLabel::BuildRegionsExpand,
        TimerLabel::BuildRegionsFlood,
        TimerLabel::BuildRegionsFilter,
        TimerLabel::BuildLayers,
        TimerLabel::BuildPolyMeshDetail,
        TimerLabel::MergePolyMeshDetail,
    ];

    /// Recast's `RC_TIMER_*` name without the prefix (what the reference dumps use).
    pub fn recast_name(self) -> &'static str {
        match self {
            TimerLabel::Total => "TOTAL",
            TimerLabel::Temp => "TEMP",
            TimerLabel::RasterizeTriangles => "RASTERIZE_TRIANGLES",
            TimerLabel::BuildCompactHeightfield => "BUILD_COMPACTHEIGHTFIELD",
            TimerLabel::BuildContours => "BUILD_CONTOURS",
            TimerLabel::BuildContoursTrace => "BUILD_CONTOURS_TRACE",
            TimerLabel::BuildContoursSimplify => "BUILD_CONTOURS_SIMPLIFY",
            TimerLabel::FilterBorder => "FILTER_BORDER",
            TimerLabel::FilterWalkable => "FILTER_WALKABLE",
            TimerLabel::MedianArea => "MEDIAN_AREA",
            TimerLabel::FilterLowObstacles => "FILTER_LOW_OBSTACLES",
            TimerLabel::BuildPolyMesh => "BUILD_POLYMESH",
            TimerLabel::MergePolyMesh => "MERGE_POLYMESH",
            TimerLabel::ErodeArea => "ERODE_AREA",
            TimerLabel::MarkBoxArea => "MARK_BOX_AREA",
            TimerLabel::MarkCylinderArea => "MARK_CYLINDER_AREA",
            TimerLabel::MarkConvexPolyArea => "MARK_CONVEXPOLY_AREA",
            TimerLabel::BuildDistanceField => "BUILD_DISTANCEFIELD",
            TimerLabel::BuildDistanceFieldDist => "BUILD_DISTANCEFIELD_DIST",
            TimerLabel::BuildDistanceFieldBlur => "BUILD_DISTANCEFIELD_BLUR",
            TimerLabel::BuildRegions => "BUILD_REGIONS",
            TimerLabel::BuildRegionsWatershed => "BUILD_REGIONS_WATERSHED",
            TimerLabel::BuildRegionsExpand => "BUILD_REGIONS_EXPAND",
            TimerLabel::BuildRegionsFlood => "BUILD_REGIONS_FLOOD",
            TimerLabel::BuildRegionsFilter => "BUILD_REGIONS_FILTER",
            TimerLabel::BuildLayers => "BUILD_LAYERS",
            TimerLabel::BuildPolyMeshDetail => "BUILD_POLYMESHDETAIL",
            TimerLabel::MergePolyMeshDetail => "MERGE_POLYMESHDETAIL",
        }
    }

    /// The line RecastDemo's build-time log prints for this label.
    pub fn display_name(self) -> &'static str {
        match self {
            TimerLabel::Total => "Total",
            TimerLabel::Temp => "Temp",
            TimerLabel::RasterizeTriangles => "Rasterize",
            TimerLabel::BuildCompactHeightfield => "Build Compact",
            TimerLabel::BuildContours => "Build Contours",
            TimerLabel::BuildContoursTrace => "Trace",
            TimerLabel::BuildContoursSimplify => "Simplify",
            TimerLabel::FilterBorder => "Filter Border",
            TimerLabel::FilterWalkable => "Filter Walkable",
            TimerLabel::MedianArea => "Median Area",
            TimerLabel::FilterLowObstacles => "Filter Low Obstacles",
            TimerLabel::BuildPolyMesh => "Build Polymesh",
            TimerLabel::MergePolyMesh => "Merge Polymeshes",
            TimerLabel::ErodeArea => "Erode Area",
            TimerLabel::MarkBoxArea => "Mark Box Area",
            TimerLabel::MarkCylinderArea => "Mark Cylinder Area",
            TimerLabel::MarkConvexPolyArea => "Mark Convex Area",
            TimerLabel::BuildDistanceField => "Build Distance Field",
            TimerLabel::BuildDistanceFieldDist => "Distance",
            TimerLabel::BuildDistanceFieldBlur => "Blur",
            TimerLabel::BuildRegions => "Build Regions",
            TimerLabel::BuildRegionsWatershed => "Watershed",
            TimerLabel::BuildRegionsExpand => "Expand",
            TimerLabel::BuildRegionsFlood => "Find Basins",
            TimerLabel::BuildRegionsFilter => "Filter",
            TimerLabel::BuildLayers => "Build Layers",
            TimerLabel::BuildPolyMeshDetail => "Build Polymesh Detail",
            TimerLabel::MergePolyMeshDetail => "Merge Polymesh Details",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Collects log lines and accumulated timer values during a build.
///
/// Timers accumulate like `rcContext`'s: starting and stopping a label twice adds both spans.
#[derive(Clone, Debug)]
pub struct BuildContext {
    log_enabled: bool,
    timers_enabled: bool,
    entries: Vec<LogEntry>,
    accumulated: [Option<Duration>; TimerLabel::ALL.len()],
    started: [Option<Instant>; TimerLabel::ALL.len()],
}

impl Default for BuildContext {
    fn default() -> Self {
        Self::new()
    }
}

impl BuildContext {
    /// A context with logging and timing on.
    pub fn new() -> Self {
        Self {
            log_enabled: true,
            timers_enabled: true,
            entries: Vec::new(),
            accumulated: [None; TimerLabel::ALL.len()],
            started: [None; TimerLabel::ALL.len()],
        }
    }

    /// A context that records nothing (benchmarks, callgrind runs).
    pub fn silent() -> Self {
        Self {
            log_enabled: false,
            timers_enabled: false,
            ..Self::new()
        }
    }

    /// Adds a log line.
    pub fn log(&mut self, category: LogCategory, message: impl Into<String>) {
        if self.log_enabled {
            self.entries.push(LogEntry {
                category,
                message: message.into(),
            });
        }
    }

    /// Adds a progress line.
    pub fn progress(&mut self, message: impl Into<String>) {
        self.log(LogCategory::Progress, message);
    }

    /// Adds a warning line.
    pub fn warning(&mut self, message: impl Into<String>) {
        self.log(LogCategory::Warning, message);
    }

    /// Adds an error line.
    pub fn error(&mut self, message: impl Into<String>) {
        self.log(LogCategory::Error, message);
    }

    /// Every log line so far, oldest first.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Forgets the log.
    pub fn reset_log(&mut self) {
        self.entries.clear();
    }

    /// Starts (or restarts) the timer of `label`.
    pub fn start_timer(&mut self, label: TimerLabel) {
        if self.timers_enabled {
            self.started[label.index()] = Some(Instant::now());
        }
    }

    /// Stops the timer of `label` and adds the elapsed time to its total.
    pub fn stop_timer(&mut self, label: TimerLabel) {
        if let Some(start) = self.started[label.index()].take() {
            let total = self.accumulated[label.index()].get_or_insert(Duration::ZERO);
            *total += start.elapsed();
        }
    }

    /// The accumulated time of `label`, or `None` if it never ran.
    pub fn accumulated(&self, label: TimerLabel) -> Option<Duration> {
        self.accumulated[label.index()]
    }

    /// Forgets all timer values.
    pub fn reset_timers(&mut self) {
        self.accumulated = [None; TimerLabel::ALL.len()];
        self.started = [None; TimerLabel::ALL.len()];
    }

    /// A context for one part of a stage run on another thread: it logs if this one does and
    /// times nothing (the stage's timer covers its parts). [`BuildContext::absorb`] the parts
    /// in order to get the log of one pass.
    pub fn for_task(&self) -> Self {
        Self {
            log_enabled: self.log_enabled,
            timers_enabled: false,
            ..Self::new()
        }
    }

    /// Adds another context's log lines and timer totals to this one (used when tiles or
    /// partial rebuilds run with their own context).
    pub fn absorb(&mut self, other: BuildContext) {
        self.entries.extend(other.entries);
        for (mine, theirs) in self.accumulated.iter_mut().zip(other.accumulated) {
            if let Some(theirs) = theirs {
                *mine.get_or_insert(Duration::ZERO) += theirs;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_accumulate_and_silent_records_nothing() {
        let mut ctx = BuildContext::new();
        assert_eq!(ctx.accumulated(TimerLabel::Total), None);
        ctx.start_timer(TimerLabel::Total);
        ctx.stop_timer(TimerLabel::Total);
        ctx.start_timer(TimerLabel::Total);
        ctx.stop_timer(TimerLabel::Total);
        assert!(ctx.accumulated(TimerLabel::Total).is_some());
        ctx.warning("careful");
        assert_eq!(ctx.entries().len(), 1);

        let mut silent = BuildContext::silent();
        silent.start_timer(TimerLabel::Total);
        silent.stop_timer(TimerLabel::Total);
        silent.error("ignored");
        assert_eq!(silent.accumulated(TimerLabel::Total), None);
        assert!(silent.entries().is_empty());
    }

    #[test]
    fn label_order_matches_recast_enum() {
        for (i, label) in TimerLabel::ALL.iter().enumerate() {
            assert_eq!(label.index(), i);
        }
    }
}

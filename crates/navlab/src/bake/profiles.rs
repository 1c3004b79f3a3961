//! Several agents' navmeshes of one level, from one rasterization.
//!
//! An [`AgentProfile`] is an agent's size and reach: radius, height and climb in metres, the
//! steepest walkable slope in degrees. [`build_profiles`] builds one solo navmesh per profile,
//! each equal to a single build with the profile's settings ([`AgentProfile::apply`]), but it
//! clips the input's triangles into the voxel grid once. Where spans go and how they merge
//! depends only on the triangles, the bounds and the cell sizes, which every profile shares;
//! the spans' areas depend on the slope (which triangles are walkable) and the climb (which
//! merges keep the walkable area), so the shared rasterization records how it settled the
//! areas ([`AreaLog`]) and each other slope and climb replays only that. Profiles with the same
//! slope and climb (in cells) share one heightfield outright. Each profile then filters,
//! erodes and partitions its own copy through the ordinary build stages; the profiles'
//! pipelines run side by side on rayon's threads.

use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::bake::settings::BuildSettings;
use crate::bake::solo::{Build, Rasterized, Retention, mark_triangle_areas};
use crate::error::{NavlabError, Result};
use crate::input::input_geom::InputGeom;
use crate::recast::config::Config;
use crate::recast::context::BuildContext;
use crate::recast::heightfield::Heightfield;
use crate::recast::span_log::{AreaLog, rasterize_triangles_logged};
use crate::threads::prelude::*;

/// The most profiles [`build_profiles`] builds at once: each holds its own heightfield and
/// compact heightfield while the profiles build side by side.
pub const MAX_PROFILES: usize = 8;

/// The longest profile name: it goes into file names.
const MAX_NAME_LEN: usize = 64;

/// An agent's size and reach, named.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentProfile {
    /// A name of letters, digits, `-` and `_`, usable in a file name.
    pub name: String,
    /// Agent radius, metres (`agentRadius`).
    pub radius: f32,
    /// Agent height, metres (`agentHeight`).
    pub height: f32,
    /// Highest step the agent climbs, metres (`agentMaxClimb`).
    pub climb: f32,
    /// Steepest walkable slope, degrees (`agentMaxSlope`).
    pub max_slope: f32,
}

impl AgentProfile {
    /// `base` with this agent's four settings, exactly as `--set agentRadius=…` and its three
    /// siblings would set them (the profile's numbers are read as a settings file reads them).
    pub fn apply(&self, settings: &BuildSettings) -> BuildSettings {
        BuildSettings {
            agent_radius: self.radius,
            agent_height: self.height,
            agent_max_climb: self.climb,
            agent_max_slope: self.max_slope,
            ..settings.clone()
        }
    }

    /// `name=radius,height,climb,slope`, as `--profile` takes it.
    pub fn to_argument(&self) -> String {
        format!(
            "{}={},{},{},{}",
            self.name, self.radius, self.height, self.climb, self.max_slope
        )
    }
}

/// The three agents a level is usually tuned for:
///
/// - `human`: RecastDemo's default agent (0.6 m radius, 2 m tall, 0.9 m steps, 45°);
/// - `crouching`: the same person crouched: 1.2 m tall, so it fits under tables and through
///   vents, and with shorter steps (0.5 m) since a crouched stride climbs less;
/// - `vehicle`: a car: 1.5 m radius (about a 3 m wide footprint), 2 m tall, climbs only kerbs
///   (0.3 m) and slopes up to 25°, a usual limit for road ramps.
///
/// Each differs from the others in climb, and the vehicle in slope too, so the three show every
/// way a profile's rasterized areas can differ.
pub fn default_profiles() -> Vec<AgentProfile> {
    let profile = |name: &str, radius, height, climb, max_slope| AgentProfile {
        name: name.to_owned(),
        radius,
        height,
        climb,
        max_slope,
    };
    vec![
        profile("human", 0.6, 2.0, 0.9, 45.0),
        profile("crouching", 0.6, 1.2, 0.5, 45.0),
        profile("vehicle", 1.5, 2.0, 0.3, 25.0),
    ]
}

impl FromStr for AgentProfile {
    type Err = NavlabError;

    /// Reads `name=radius,height,climb,slope` (metres and degrees).
    fn from_str(text: &str) -> Result<Self> {
        let fail = |reason: String| NavlabError::InvalidAgentProfile {
            profile: crate::warnings::excerpt(text, 80),
            reason,
        };
        let (name, numbers) = text.split_once('=').ok_or_else(|| {
            fail("write it as NAME=RADIUS,HEIGHT,CLIMB,SLOPE, e.g. human=0.6,2.0,0.9,45".into())
        })?;
        check_name(name).map_err(fail)?;
        let numbers: Vec<&str> = numbers.split(',').collect();
        if numbers.len() != 4 {
            return Err(fail(format!(
                "expected 4 numbers after the name (radius, height and climb in metres, slope in degrees), found {}",
                numbers.len()
            )));
        }
        let mut values = [0.0f32; 4];
        for ((value, text), what) in values
            .iter_mut()
            .zip(&numbers)
            .zip(["radius", "height", "climb", "slope"])
        {
            *value = read_number(what, text).map_err(fail)?;
        }
        let [radius, height, climb, max_slope] = values;
        if height <= 0.0 {
            return Err(fail(format!("height {height} must be above zero")));
        }
        if max_slope > 90.0 {
            return Err(fail(format!("slope {max_slope} is over 90 degrees")));
        }
        Ok(AgentProfile {
            name: name.to_owned(),
            radius,
            height,
            climb,
            max_slope,
        })
    }
}

/// Whether `name` can name a profile and its files.
fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("the name before `=` is empty".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "the name is {} characters long, at most {MAX_NAME_LEN}",
            name.len()
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "the name `{}` may hold only letters, digits, `-` and `_` (it goes into file names)",
            crate::warnings::excerpt(name, 40)
        ));
    }
    Ok(())
}

/// One of a profile's numbers: finite and not negative. Read as a double and rounded to `f32`
/// once, as a settings file's number is, so that the profile sets the very value `--set` would.
fn read_number(what: &str, text: &str) -> std::result::Result<f32, String> {
    let shown = || crate::warnings::excerpt(text.trim(), 20);
    let value = text
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("{what} `{}` is not a number", shown()))? as f32;
    if !value.is_finite() {
        return Err(format!("{what} `{}` is not a finite number", shown()));
    }
    if value < 0.0 {
        return Err(format!("{what} {value} is negative"));
    }
    Ok(value)
}

/// Checks a list of profiles: one to [`MAX_PROFILES`], names distinct even ignoring case (a
/// file system may not tell `A` from `a`).
pub fn check_profiles(profiles: &[AgentProfile]) -> Result<()> {
    let fail = |reason: String| NavlabError::InvalidAgentProfile {
        profile: profiles
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        reason,
    };
    if profiles.is_empty() {
        return Err(fail("no profile to build".into()));
    }
    if profiles.len() > MAX_PROFILES {
        return Err(fail(format!(
            "{} profiles, at most {MAX_PROFILES}",
            profiles.len()
        )));
    }
    for (i, profile) in profiles.iter().enumerate() {
        if let Some(earlier) = profiles[..i]
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&profile.name))
        {
            return Err(fail(format!(
                "two profiles are named `{}`{}; names must differ (in more than case)",
                earlier.name,
                if earlier.name == profile.name {
                    String::new()
                } else {
                    format!(" and `{}`", profile.name)
                }
            )));
        }
    }
    Ok(())
}

/// What [`build_profiles_timed`] returns: each profile's build, in order, and the time of the
/// rasterization they shared.
#[derive(Debug)]
pub struct ProfileBuilds {
    /// One build per profile, in the profiles' order: the build, or the error a single build
    /// with the profile's settings would have stopped with.
    pub builds: Vec<Result<Build>>,
    /// Wall time of the shared rasterizations (with the area logs and their replays); each
    /// build's own rasterization time is what its copy of the heightfield took.
    pub shared_rasterization: Duration,
}

/// One solo build per profile, each equal to
/// `Build::from_input_keeping(input, profile.apply(base), retention)` (the same heightfield,
/// compact heightfield, meshes and navmesh bytes), with the input rasterized once. The outer
/// error is for an unusable profile list ([`check_profiles`]).
pub fn build_profiles(
    input: &InputGeom,
    base: &BuildSettings,
    profiles: &[AgentProfile],
    retention: Retention,
) -> Result<Vec<Result<Build>>> {
    Ok(build_profiles_timed(input, base, profiles, retention)?.builds)
}

/// [`build_profiles`], with the time of the shared rasterization.
pub fn build_profiles_timed(
    input: &InputGeom,
    base: &BuildSettings,
    profiles: &[AgentProfile],
    retention: Retention,
) -> Result<ProfileBuilds> {
    check_profiles(profiles)?;
    let settings: Vec<BuildSettings> = profiles.iter().map(|p| p.apply(base)).collect();
    let started = Instant::now();
    let heightfields = shared_heightfields(input, &settings);
    let shared_rasterization = started.elapsed();
    let builds = settings
        .into_par_iter()
        .zip(heightfields)
        .map(|(settings, heightfield)| match heightfield {
            Some(shared) => {
                let copied = Instant::now();
                // The last profile to take a shared heightfield takes it whole.
                let shared =
                    std::sync::Arc::try_unwrap(shared).unwrap_or_else(|shared| SharedHeightfield {
                        heightfield: Heightfield::clone(&shared.heightfield),
                        triangle_areas: shared.triangle_areas.clone(),
                    });
                let rasterized = Rasterized {
                    heightfield: shared.heightfield,
                    triangle_areas: shared.triangle_areas,
                    time: copied.elapsed(),
                };
                Build::from_rasterized(input, settings, retention, rasterized)
            }
            None => Build::from_input_keeping(input, settings, retention),
        })
        .collect();
    Ok(ProfileBuilds {
        builds,
        shared_rasterization,
    })
}

/// A heightfield with the triangle areas it was rasterized with, shared by the profiles whose
/// rasterization it is.
struct SharedHeightfield {
    heightfield: Heightfield,
    triangle_areas: Vec<u8>,
}

/// What a rasterization depends on beyond the input: the grid and the cell sizes (bits).
fn grid_key(config: &Config) -> [u32; 10] {
    let [a, b, c] = config.bmin.map(f32::to_bits);
    let [d, e, f] = config.bmax.map(f32::to_bits);
    [
        config.width as u32,
        config.height as u32,
        config.cs.to_bits(),
        config.ch.to_bits(),
        a,
        b,
        c,
        d,
        e,
        f,
    ]
}

/// What a rasterization's areas depend on beyond the grid: the slope limit (bits) and the climb
/// in cells.
fn area_key(config: &Config) -> (u32, i32) {
    (config.walkable_slope_angle.to_bits(), config.walkable_climb)
}

/// Each profile's rasterized heightfield, shared among profiles of the same grid, slope and
/// climb; `None` for a profile to build on its own: one whose settings or bounds fail (its
/// own build reports it), one alone on its grid, or any whose shared rasterization failed.
fn shared_heightfields(
    input: &InputGeom,
    settings: &[BuildSettings],
) -> Vec<Option<std::sync::Arc<SharedHeightfield>>> {
    let mut heightfields = vec![None; settings.len()];
    let Ok((bmin, bmax)) = input.nav_mesh_bounds() else {
        return heightfields;
    };
    let configs: Vec<Option<Config>> = settings
        .iter()
        .map(|s| s.to_config(bmin, bmax).ok())
        .collect();
    let mut done = vec![false; settings.len()];
    for first in 0..settings.len() {
        let Some(config) = &configs[first] else {
            continue;
        };
        if done[first] {
            continue;
        }
        let members: Vec<usize> = (first..settings.len())
            .filter(|&i| {
                configs[i]
                    .as_ref()
                    .is_some_and(|c| grid_key(c) == grid_key(config))
            })
            .collect();
        for &i in &members {
            done[i] = true;
        }
        if members.len() < 2 {
            continue;
        }
        let member_configs: Vec<&Config> = members
            .iter()
            .filter_map(|&i| configs[i].as_ref())
            .collect();
        if let Some(shared) = rasterize_shared(input, &member_configs) {
            for (&i, heightfield) in members.iter().zip(shared) {
                heightfields[i] = Some(heightfield);
            }
        }
    }
    heightfields
}

/// The heightfields of profiles sharing one grid (`configs`, in order): one rasterization with
/// the first one's areas and climb, replayed for each other slope and climb. `None` when the
/// rasterization fails (each profile's own build then reports the error as a single build
/// would).
fn rasterize_shared(
    input: &InputGeom,
    configs: &[&Config],
) -> Option<Vec<std::sync::Arc<SharedHeightfield>>> {
    use std::sync::Arc;
    let mesh = &input.mesh;
    let first = configs[0];
    let mut ctx = BuildContext::new();
    let triangle_areas = |ctx: &mut BuildContext, config: &Config| {
        let mut areas = vec![crate::recast::NULL_AREA; mesh.tri_count()];
        mark_triangle_areas(
            ctx,
            config.walkable_slope_angle,
            mesh,
            &mesh.tris,
            None,
            &mut areas,
        )
        .ok()
        .map(|()| areas)
    };
    let mut keys: Vec<(u32, i32)> = Vec::new();
    for config in configs {
        if !keys.contains(&area_key(config)) {
            keys.push(area_key(config));
        }
    }
    let first_areas = triangle_areas(&mut ctx, first)?;
    let mut heightfield = Heightfield::try_new(
        first.width,
        first.height,
        first.bmin,
        first.bmax,
        first.cs,
        first.ch,
    )
    .ok()?;
    let log: Option<AreaLog> = if keys.len() > 1 {
        Some(
            rasterize_triangles_logged(
                &mut ctx,
                &mesh.verts,
                &mesh.tris,
                &first_areas,
                &mut heightfield,
                first.walkable_climb,
            )
            .ok()?,
        )
    } else {
        crate::recast::rasterize::rasterize_triangles_parallel(
            &mut ctx,
            &mesh.verts,
            &mesh.tris,
            &first_areas,
            &mut heightfield,
            first.walkable_climb,
        )
        .ok()?;
        None
    };
    // The other slopes and climbs, each on a copy of the heightfield.
    let replayed: Vec<Option<SharedHeightfield>> = keys[1..]
        .par_iter()
        .map(|&key| {
            let config = configs.iter().find(|c| area_key(c) == key)?;
            let log = log.as_ref()?;
            let mut ctx = BuildContext::new();
            let areas = triangle_areas(&mut ctx, config)?;
            let mut copy = Heightfield::clone(&heightfield);
            log.replay(&mut copy, &areas, config.walkable_climb).ok()?;
            Some(SharedHeightfield {
                heightfield: copy,
                triangle_areas: areas,
            })
        })
        .collect();
    let mut by_key = vec![Arc::new(SharedHeightfield {
        heightfield,
        triangle_areas: first_areas,
    })];
    for shared in replayed {
        by_key.push(Arc::new(shared?));
    }
    Some(
        configs
            .iter()
            .map(|config| {
                let k = keys.iter().position(|&key| key == area_key(config));
                by_key[k.unwrap_or(0)].clone()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        text.parse::<AgentProfile>().unwrap_err().to_string()
    }

    #[test]
    fn profiles_read_name_and_four_numbers() {
        let profile: AgentProfile = "big_dog-2=0.5,1,0.25,30.5".parse().unwrap();
        assert_eq!(
            profile,
            AgentProfile {
                name: "big_dog-2".into(),
                radius: 0.5,
                height: 1.0,
                climb: 0.25,
                max_slope: 30.5,
            }
        );
        assert_eq!(
            profile.to_argument().parse::<AgentProfile>().unwrap(),
            profile
        );
        for profile in default_profiles() {
            assert_eq!(
                profile.to_argument().parse::<AgentProfile>().unwrap(),
                profile
            );
        }
    }

    #[test]
    fn bad_profiles_say_what_is_wrong() {
        assert!(error("human").contains("write it as NAME=RADIUS,HEIGHT,CLIMB,SLOPE"));
        assert!(error("=0.6,2,0.9,45").contains("the name before `=` is empty"));
        assert!(error("a b=0.6,2,0.9,45").contains("only letters, digits, `-` and `_`"));
        assert!(error("../x=0.6,2,0.9,45").contains("only letters, digits"));
        assert!(error("a=1,2,3").contains("expected 4 numbers"));
        assert!(error("a=1,2,3").contains("found 3"));
        assert!(error("a=1,2,3,4,5").contains("found 5"));
        assert!(error("a=1,tall,3,4").contains("height `tall` is not a number"));
        assert!(error("a=-1,2,3,4").contains("radius -1 is negative"));
        assert!(error("a=1,2,inf,4").contains("climb `inf` is not a finite number"));
        assert!(error("a=1,0,0.5,4").contains("height 0 must be above zero"));
        assert!(error("a=1,2,0.5,91").contains("slope 91 is over 90 degrees"));
        assert!(error("a=1,2,3").starts_with("agent profile a=1,2,3: "));
    }

    #[test]
    fn profile_lists_are_checked() {
        let named = |name: &str| AgentProfile {
            name: name.into(),
            ..default_profiles()[0].clone()
        };
        check_profiles(&default_profiles()).unwrap();
        let message = |profiles: &[AgentProfile]| check_profiles(profiles).unwrap_err().to_string();
        assert!(message(&[]).contains("no profile"));
        let nine: Vec<_> = (0..9).map(|k| named(&format!("p{k}"))).collect();
        assert!(message(&nine).contains("9 profiles, at most 8"));
        check_profiles(&nine[..MAX_PROFILES]).unwrap();
        assert!(
            message(&[named("a"), named("b"), named("a")]).contains("two profiles are named `a`")
        );
        assert!(message(&[named("Car"), named("car")]).contains("`Car` and `car`"));
    }

    /// The profile's settings are the ones `--set` gives, bit for bit.
    #[cfg(feature = "toml")]
    #[test]
    fn apply_sets_what_set_sets() {
        let base = BuildSettings::default();
        for text in [
            "a=0.1,0.3,0.7,33.3",
            "b=0.6,2.0,0.9,45",
            "c=1e-3,7,0,89.99999",
        ] {
            let profile: AgentProfile = text.parse().unwrap();
            let numbers: Vec<&str> = text.split_once('=').unwrap().1.split(',').collect();
            let mut set = base.clone();
            for (name, value) in [
                "agentRadius",
                "agentHeight",
                "agentMaxClimb",
                "agentMaxSlope",
            ]
            .iter()
            .zip(numbers)
            {
                set.set(&format!("{name}={value}")).unwrap();
            }
            assert_eq!(profile.apply(&base), set, "{text}");
        }
    }
}

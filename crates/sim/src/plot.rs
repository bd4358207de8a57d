//! Pictures of a simulation: bankroll paths and the final-bankroll distribution.

use plotters::prelude::*;

use crate::SessionResult;

/// The most sessions drawn as paths.
pub const PATHS_DRAWN_MAX: usize = 40;

/// Writes an SVG with the recorded bankroll paths on the left and a
/// histogram of final bankrolls on the right. Amounts are in major units.
pub fn sessions_svg(path: &std::path::Path, title: &str, results: &[SessionResult], start: u64) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", path.display());
    let root = SVGBackend::new(path, (1200, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root.titled(title, ("sans-serif", 22)).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(640);
    let major = |m: u64| m as f64 / 100.0;

    let drawn: Vec<&SessionResult> = results
        .iter()
        .filter(|r| !r.path.is_empty())
        .take(PATHS_DRAWN_MAX)
        .collect();
    let longest = drawn.iter().map(|r| r.path.len()).max().unwrap_or(2).max(2);
    let top = drawn
        .iter()
        .flat_map(|r| r.path.iter().copied())
        .chain([start])
        .max()
        .unwrap_or(start);
    let mut chart = ChartBuilder::on(&left)
        .caption("bankroll paths", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0usize..longest, 0f64..major(top) * 1.05)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("sample (evenly spaced spins)")
        .y_desc("bankroll")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, r) in drawn.iter().enumerate() {
        let colour = Palette99::pick(i).mix(0.8);
        chart
            .draw_series(LineSeries::new(
                r.path.iter().enumerate().map(|(x, &y)| (x, major(y))),
                colour.stroke_width(1),
            ))
            .map_err(|e| err(&e))?;
    }
    chart
        .draw_series(LineSeries::new(
            [(0, major(start)), (longest, major(start))],
            BLACK.stroke_width(2),
        ))
        .map_err(|e| err(&e))?;

    const BINS: usize = 40;
    let max_final = results.iter().map(|r| r.final_bankroll).max().unwrap_or(1).max(1);
    let width = max_final.div_ceil(BINS as u64).max(1);
    let mut counts = [0u32; BINS + 1];
    for r in results {
        counts[(r.final_bankroll / width) as usize] += 1;
    }
    let highest = counts.iter().copied().max().unwrap_or(1);
    let mut hist = ChartBuilder::on(&right)
        .caption("final bankroll", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..major(width * (BINS as u64 + 1)), 0u32..highest + highest / 10 + 1)
        .map_err(|e| err(&e))?;
    hist.configure_mesh()
        .x_desc("bankroll at the end")
        .y_desc("sessions")
        .draw()
        .map_err(|e| err(&e))?;
    hist.draw_series(counts.iter().enumerate().map(|(i, &c)| {
        let x0 = major(width * i as u64);
        let x1 = major(width * (i as u64 + 1));
        Rectangle::new([(x0, 0), (x1, c)], BLUE.mix(0.6).filled())
    }))
    .map_err(|e| err(&e))?;
    hist.draw_series(LineSeries::new(
        [(major(start), 0), (major(start), highest)],
        RED.stroke_width(2),
    ))
    .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

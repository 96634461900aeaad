//! A small log–log line chart in SVG, enough for time-against-size plots.

use std::fmt::Write;

/// One line of the chart: a label and its `(x, y)` points (both positive).
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A log–log chart.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub lines: Vec<Line>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/// Labels for a power of ten on the x axis (sizes).
fn size_label(exponent: i32) -> String {
    match exponent {
        0..=3 => 10f64.powi(exponent).to_string(),
        _ => format!("1e{exponent}"),
    }
}

/// Labels for a power of ten on the y axis (seconds).
fn seconds_label(exponent: i32) -> String {
    match exponent {
        -9 => "1 ns".into(),
        -8 => "10 ns".into(),
        -7 => "100 ns".into(),
        -6 => "1 µs".into(),
        -5 => "10 µs".into(),
        -4 => "100 µs".into(),
        -3 => "1 ms".into(),
        -2 => "10 ms".into(),
        -1 => "100 ms".into(),
        0 => "1 s".into(),
        1 => "10 s".into(),
        2 => "100 s".into(),
        e => format!("1e{e} s"),
    }
}

impl Chart {
    /// The chart as a standalone SVG document.
    pub fn render(&self) -> String {
        let points = self.lines.iter().flat_map(|l| l.points.iter()).filter(|(x, y)| *x > 0.0 && *y > 0.0);
        let (mut x_min, mut x_max, mut y_min, mut y_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in points {
            x_min = x_min.min(x.log10());
            x_max = x_max.max(x.log10());
            y_min = y_min.min(y.log10());
            y_max = y_max.max(y.log10());
        }
        if x_min > x_max {
            (x_min, x_max, y_min, y_max) = (0.0, 1.0, 0.0, 1.0);
        }
        let (x_lo, x_hi) = (x_min.floor() as i32, (x_max.ceil() as i32).max(x_min.floor() as i32 + 1));
        let (y_lo, y_hi) = (y_min.floor() as i32, (y_max.ceil() as i32).max(y_min.floor() as i32 + 1));
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let sx = |x: f64| LEFT + (x.log10() - x_lo as f64) / (x_hi - x_lo) as f64 * plot_w;
        let sy = |y: f64| TOP + plot_h - (y.log10() - y_lo as f64) / (y_hi - y_lo) as f64 * plot_h;

        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            escape(&self.title)
        );
        for e in x_lo..=x_hi {
            let x = sx(10f64.powi(e));
            let _ =
                writeln!(svg, r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/>"##, TOP + plot_h);
            let _ = writeln!(
                svg,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                TOP + plot_h + 18.0,
                size_label(e)
            );
        }
        for e in y_lo..=y_hi {
            let y = sy(10f64.powi(e));
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
                LEFT + plot_w
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 6.0,
                y + 4.0,
                seconds_label(e)
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 15.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            svg,
            r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
            TOP + plot_h / 2.0,
            TOP + plot_h / 2.0,
            escape(&self.y_label)
        );
        for (i, line) in self.lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let coords: Vec<String> = line
                .points
                .iter()
                .filter(|(x, y)| *x > 0.0 && *y > 0.0)
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                coords.join(" ")
            );
            for c in &coords {
                let (x, y) = c.split_once(',').unwrap();
                let _ = writeln!(svg, r#"<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>"#);
            }
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let lx = LEFT + plot_w + 12.0;
            let _ = writeln!(
                svg,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/>"#,
                lx + 20.0
            );
            let _ = writeln!(svg, r#"<text x="{}" y="{}">{}</text>"#, lx + 26.0, ly + 4.0, escape(&line.label));
        }
        svg.push_str("</svg>\n");
        svg
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

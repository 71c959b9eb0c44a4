//! What a search's `info` lines say: the last value of each field (the main line only).

/// Words of an info line that start a field (what follows `pv` runs to the next of these).
const KEYWORDS: [&str; 17] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

/// The fields kept, as the words that set them.
const FIELDS: [&str; 7] = ["depth", "seldepth", "score", "nodes", "nps", "time", "pv"];

/// The last value of each field the info lines of one search gave (None where none did).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: Option<i64>,
    pub seldepth: Option<i64>,
    pub score_cp: Option<i64>,
    pub score_mate: Option<i64>,
    pub nodes: Option<i64>,
    pub nps: Option<i64>,
    pub time_ms: Option<i64>,
    pub pv: Vec<String>,
}

/// The fields one line sets, by the index of their word in FIELDS.
#[derive(Default)]
struct LineFields {
    numbers: [Option<i64>; 7],
    score: Option<(bool, i64)>,
    pv: Option<Vec<String>>,
}

impl LineFields {
    fn has(&self, field: usize) -> bool {
        match FIELDS[field] {
            "score" => self.score.is_some(),
            "pv" => self.pv.is_some(),
            _ => self.numbers[field].is_some(),
        }
    }
}

fn parse_line(line: &str) -> LineFields {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut fields = LineFields::default();
    let mut multipv = 1;
    let mut i = 1;
    while i < tokens.len() {
        let key = tokens[i];
        i += 1;
        if key == "string" {
            break;
        }
        if key == "score" && i + 1 < tokens.len() && matches!(tokens[i], "cp" | "mate") {
            if let Ok(n) = tokens[i + 1].parse() {
                fields.score = Some((tokens[i] == "cp", n));
            }
            i += 2;
        } else if key == "pv" {
            let start = i;
            while i < tokens.len() && !KEYWORDS.contains(&tokens[i]) {
                i += 1;
            }
            fields.pv = Some(tokens[start..i].iter().map(|t| t.to_string()).collect());
        } else if KEYWORDS.contains(&key) && i < tokens.len() {
            if let Ok(n) = tokens[i].parse::<i64>() {
                if key == "multipv" {
                    multipv = n;
                } else if let Some(f) = FIELDS.iter().position(|&w| w == key) {
                    fields.numbers[f] = Some(n);
                }
            }
            i += 1;
        }
    }
    if multipv != 1 {
        return LineFields::default();
    }
    fields
}

impl SearchInfo {
    /// What the lines say, read from the last back: a line holding no word of a field not yet
    /// settled is passed over unparsed (an engine's earlier iterations cost a word scan each).
    pub fn of_lines<S: AsRef<str>>(lines: &[S]) -> SearchInfo {
        let mut info = SearchInfo::default();
        let mut settled = [false; 7];
        for line in lines.iter().rev() {
            let line = line.as_ref();
            let wanted = |w: &str| FIELDS.iter().zip(settled).any(|(f, s)| !s && *f == w);
            if !line.split_whitespace().any(wanted) {
                continue;
            }
            let fields = parse_line(line);
            for (f, done) in settled.iter_mut().enumerate() {
                if *done || !fields.has(f) {
                    continue;
                }
                *done = true;
                match FIELDS[f] {
                    "score" => {
                        let (cp, n) = fields.score.unwrap_or_default();
                        (info.score_cp, info.score_mate) = if cp { (Some(n), None) } else { (None, Some(n)) };
                    }
                    "pv" => info.pv = fields.pv.clone().unwrap_or_default(),
                    "depth" => info.depth = fields.numbers[f],
                    "seldepth" => info.seldepth = fields.numbers[f],
                    "nodes" => info.nodes = fields.numbers[f],
                    "nps" => info.nps = fields.numbers[f],
                    _ => info.time_ms = fields.numbers[f],
                }
            }
            if settled.iter().all(|&s| s) {
                break;
            }
        }
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: each line's fields applied in turn.
    fn line_by_line(lines: &[&str]) -> SearchInfo {
        let mut info = SearchInfo::default();
        for line in lines {
            let f = parse_line(line);
            if let Some((cp, n)) = f.score {
                (info.score_cp, info.score_mate) = if cp { (Some(n), None) } else { (None, Some(n)) };
            }
            if let Some(pv) = f.pv {
                info.pv = pv;
            }
            let slots =
                [&mut info.depth, &mut info.seldepth, &mut None, &mut info.nodes, &mut info.nps, &mut info.time_ms];
            for (slot, value) in slots.into_iter().zip(f.numbers) {
                if value.is_some() {
                    *slot = value;
                }
            }
        }
        info
    }

    /// Every order of lines that set, reset (an empty pv, a mate after a cp score), leave out or
    /// cannot read fields gives from the last line back what line by line gives.
    #[test]
    fn from_the_last_line_back_is_line_by_line() {
        let pool = [
            "info depth 3 seldepth 5 score cp 12 nodes 400 nps 4000 time 100 pv d2d3 e6e5 b1d3f5",
            "info depth 4 score cp 20 lowerbound nodes 900 multipv 1 pv c2c3",
            "info depth 9 score cp 999 nodes 99999 multipv 2 pv a2a3",
            "info nodes 1200 nps nonsense currmove d2d3 currmovenumber 2",
            "info string depth 99 score cp 5",
            "info depth 6 score mate 2 nodes 5 pv",
            "info depth x seldepth 7 nodes 8 time 9 score cp y",
            "info score cp -4 multipv 1",
            "info",
        ];
        let mut seed: u64 = 3;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..500 {
            let count = next(7);
            let lines: Vec<&str> = (0..count).map(|_| pool[next(pool.len())]).collect();
            assert_eq!(SearchInfo::of_lines(&lines), line_by_line(&lines), "{lines:?}");
        }
    }

    #[test]
    fn the_last_value_of_each_field() {
        let lines = [
            "info depth 1 score cp 36 nodes 26 nps 2166 time 12 pv a1c3",
            "info depth 2 seldepth 5 score mate 3 nodes 158 pv a1c3 a7c5",
            "info string depth 9 nodes 1",
            "info depth 3 multipv 2 score cp 99 nodes 999 pv b1b2",
            "info nodes 200 currmove a1a2 hashfull 10",
        ];
        let info = SearchInfo::of_lines(&lines);
        assert_eq!(
            info,
            SearchInfo {
                depth: Some(2),
                seldepth: Some(5),
                score_cp: None,
                score_mate: Some(3),
                nodes: Some(200),
                nps: Some(2166),
                time_ms: Some(12),
                pv: vec!["a1c3".into(), "a7c5".into()],
            }
        );
        assert_eq!(SearchInfo::of_lines::<&str>(&[]), SearchInfo::default());
        let bad = SearchInfo::of_lines(&["info depth x score cp nodes 5 pv"]);
        // "cp nodes" is no score, and it takes "nodes" with it: 5 is then a word of no field.
        assert_eq!((bad.depth, bad.score_cp, bad.nodes, bad.pv.len()), (None, None, None, 0));
    }
}

//! Zobrist keys, generated at compile time from a fixed seed so hashes agree on every machine.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Keys for `[colour][kind][square]` (up to 8 kinds, 64 squares) plus the side-to-move key.
pub struct Keys {
    pub piece: [[[u64; 64]; 8]; 2],
    pub black_to_move: u64,
}

const fn build(seed: u64) -> Keys {
    let mut piece = [[[0u64; 64]; 8]; 2];
    let mut state = seed;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 8 {
            let mut s = 0;
            while s < 64 {
                let (next, value) = splitmix(state);
                state = next;
                piece[c][k][s] = value;
                s += 1;
            }
            k += 1;
        }
        c += 1;
    }
    let (_, black_to_move) = splitmix(state);
    Keys { piece, black_to_move }
}

pub static CONGO: Keys = build(0xC0_4C0_u64 ^ 0x1234_5678_9ABC_DEF0);
pub static CONGRESS: Keys = build(0xC0_4625_u64 ^ 0x0FED_CBA9_8765_4321);

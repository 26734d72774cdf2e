//! A board packed into the fewest words, for the state table: the explorer keeps one key
//! per reachable board, so the key's size is most of the solver's memory.
//!
//! The outer ring is always wall, so movables stand on the 6x6 inner cells only. The
//! stones are those 36 bits. A colour holds exactly two fruits or none (a pair leaves
//! together; a fruit lost any other way loses the level, which is not a state), so it is
//! one of the 630 pairs of inner cells or gone: a digit of base 631. The first word holds
//! the stones and three colours (36 + 28 bits), the second the other colours (up to five:
//! 47 bits). Up to three colours a board is one `u64` instead of four.

/// Pairs of inner cells, plus "gone" (code 0).
const RADIX: u64 = 631;
/// Colours that fit beside the stones in the first word (631^3 < 2^28).
const FIRST: usize = 3;
const STONE_BITS: u32 = 36;

/// Words of the key of a board with `colours` colours.
pub const fn words(colours: usize) -> usize {
    if colours <= FIRST { 1 } else { 2 }
}

/// The inner cell (0..36) of each board bit (bit y * 8 + x, x and y in 1..=6).
const INNER: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut y = 1;
    while y <= 6 {
        let mut x = 1;
        while x <= 6 {
            t[y * 8 + x] = ((y - 1) * 6 + x - 1) as u8;
            x += 1;
        }
        y += 1;
    }
    t
};

/// The two fruits of each code, as a bitboard (code 0: none).
const PAIR: [u64; RADIX as usize] = {
    let mut t = [0u64; RADIX as usize];
    let mut hi = 1;
    while hi < 36 {
        let mut lo = 0;
        while lo < hi {
            t[1 + hi * (hi - 1) / 2 + lo] = (1 << board_bit(lo)) | (1 << board_bit(hi));
            lo += 1;
        }
        hi += 1;
    }
    t
};

/// The board bit of inner cell `i`.
const fn board_bit(i: usize) -> usize {
    (i / 6 + 1) * 8 + i % 6 + 1
}

/// Per board bit of the higher fruit: 1 + the pairs whose higher cell comes before it.
const HIGH: [u16; 64] = {
    let mut t = [0u16; 64];
    let mut bit = 0;
    while bit < 64 {
        let hi = INNER[bit] as usize;
        t[bit] = (1 + hi * hi.saturating_sub(1) / 2) as u16;
        bit += 1;
    }
    t
};

#[inline(always)]
fn pair_code(word: u64) -> u64 {
    if word == 0 {
        return 0;
    }
    debug_assert_eq!(word.count_ones(), 2, "a colour has two fruits or none");
    HIGH[63 - word.leading_zeros() as usize] as u64 + INNER[word.trailing_zeros() as usize] as u64
}

/// The inner cells' bits (rows 1..=6, columns 1..=6, eight apart) made contiguous, in
/// three steps of shifts and masks.
#[inline(always)]
fn stones_in(word: u64) -> u64 {
    let x = word >> 9;
    let x = (x & 0x003f_003f_003f) | ((x >> 2) & 0x0fc0_0fc0_0fc0);
    (x & 0xfff) | ((x >> 4) & 0xff_f000) | ((x >> 8) & 0xf_ff00_0000)
}

#[inline(always)]
fn stones_out(bits: u64) -> u64 {
    let x = (bits & 0xfff) | ((bits & 0xff_f000) << 4) | ((bits & 0xf_ff00_0000) << 8);
    let x = (x & 0x003f_003f_003f) | ((x & 0x0fc0_0fc0_0fc0) << 2);
    x << 9
}

/// Colour digits in base 631, the first colour lowest.
#[inline(always)]
fn digits(words: &[u64]) -> u64 {
    words
        .iter()
        .rev()
        .fold(0, |acc, &w| acc * RADIX + pair_code(w))
}

#[inline(always)]
fn undigits(mut n: u64, out: &mut [u64]) {
    for w in out {
        *w = PAIR[(n % RADIX) as usize];
        n /= RADIX;
    }
}

/// Packs a state row (`W` = colours + 1 words, stones last) into `K` words.
#[inline(always)]
pub fn pack<const W: usize, const K: usize>(state: &[u64; W]) -> [u64; K] {
    let colours = W - 1;
    let first = colours.min(FIRST);
    let mut key = [0u64; K];
    key[0] = stones_in(state[colours]) | digits(&state[..first]) << STONE_BITS;
    if K > 1 {
        key[1] = digits(&state[first..colours]);
    }
    key
}

/// The state row of a key.
#[inline(always)]
pub fn unpack<const W: usize, const K: usize>(key: &[u64; K]) -> [u64; W] {
    let colours = W - 1;
    let first = colours.min(FIRST);
    let mut state = [0u64; W];
    state[colours] = stones_out(key[0] & ((1 << STONE_BITS) - 1));
    undigits(key[0] >> STONE_BITS, &mut state[..first]);
    if K > 1 {
        undigits(key[1], &mut state[first..colours]);
    }
    state
}

/// Whether every colour is gone.
#[inline(always)]
pub fn is_win<const K: usize>(key: &[u64; K]) -> bool {
    key[0] >> STONE_BITS == 0 && key[1..].iter().all(|&w| w == 0)
}

/// The stones of a key of any width.
pub fn stones(key: &[u64]) -> u64 {
    stones_out(key[0] & ((1 << STONE_BITS) - 1))
}

/// The state row of a key of any width, for code outside the search.
pub fn unpack_row(key: &[u64], colours: usize) -> Vec<u64> {
    let first = colours.min(FIRST);
    let mut state = vec![0u64; colours + 1];
    state[colours] = stones_out(key[0] & ((1 << STONE_BITS) - 1));
    undigits(key[0] >> STONE_BITS, &mut state[..first]);
    if colours > FIRST {
        undigits(key[1], &mut state[first..colours]);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_and_stone_set_round_trips() {
        let inner: Vec<u64> = (1..=6)
            .flat_map(|y| (1..=6).map(move |x| 1u64 << (y * 8 + x)))
            .collect();
        for (i, &a) in inner.iter().enumerate() {
            for &b in &inner[i + 1..] {
                let state = [
                    a | b,
                    0,
                    inner[2] | inner[30],
                    inner[35] | inner[0] | inner[7],
                ];
                let key = pack::<4, 1>(&state);
                assert_eq!(unpack::<4, 1>(&key), state);
                let wide = [0, a | b, 0, a | b, 0, 0, 0, a | b, inner[20] | inner[5]];
                let key = pack::<9, 2>(&wide);
                assert_eq!(unpack::<9, 2>(&key), wide);
                assert_eq!(unpack_row(&key, 8), wide);
                assert!(!is_win(&key));
            }
        }
        let all_stones = inner.iter().fold(0, |acc, &c| acc | c);
        let key = pack::<2, 1>(&[0, all_stones]);
        assert!(is_win(&key));
        assert_eq!(unpack::<2, 1>(&key), [0, all_stones]);
    }
}

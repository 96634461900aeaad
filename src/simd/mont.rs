//! Montgomery arithmetic modulo an odd prime `p < 2^31` in sixteen 32-bit lanes (the
//! cards kernels: transform butterflies, power sums, frequency lanes).

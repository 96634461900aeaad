//! Windows of 64-bit words with funnel shifts, lane alignment and the first free lane
//! (the stones scans).

// Package npz reads and writes NumPy .npy arrays and .npz archives (zip
// files of .npy entries, stored or deflated).
//
// The reader parses .npy format versions 1–3, little- and big-endian
// numeric dtypes (f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1), C order, and 0-d
// scalars. Entries it cannot represent — pickled objects (|O), unicode and
// byte strings (<U.., |S..) — are recorded as skipped, never fatal: the
// benchmark datasets carry such metadata next to their arrays. Every size
// declared in a header is checked against the bytes actually present before
// anything is allocated, so corrupt or hostile files end in an error, not a
// panic or a huge allocation.
//
// The writer produces uncompressed archives that numpy.load opens, and
// writes atomically (temporary file in the same directory, fsync, rename),
// so an interrupted write never leaves a half-written file in place.
package npz

// Package zipseed re-packs zip archives for fuzz seeds: every entry stored
// uncompressed with a zero CRC, which archive/zip does not check, so that a
// mutation reaches the contents instead of failing the checksum. It imports
// nothing of rgnn, so the npz package's own fuzz test can use it.
package zipseed

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
)

// NoCRC re-packs a zip archive with every entry stored uncompressed and a
// zero CRC.
func NoCRC(tb testing.TB, b []byte) []byte {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: zip.Store,
			CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data))})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

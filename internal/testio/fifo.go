//go:build unix

package testio

import (
	"io"
	"os"
	"syscall"
	"testing"
)

// FIFO makes a FIFO at path and returns a channel receiving everything
// written to it (read until the writer closes; nil if it cannot be
// opened). Without mkfifo the test is skipped.
func FIFO(t testing.TB, path string) chan []byte {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	return got
}

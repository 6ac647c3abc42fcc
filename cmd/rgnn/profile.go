package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/internal/outfile"
)

// profiling binds --cpuprofile and --memprofile (every subcommand): a CPU
// profile of the whole command, and a heap profile written when it ends
// (in-use and allocated bytes; `go tool pprof -sample_index=inuse_space`),
// both when the command succeeds (cobra runs no post-run hook after an
// error).
type profiling struct {
	cpu, mem string
	cpuFile  *outfile.File
}

func (p *profiling) flags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof; written when the command succeeds)")
	f.StringVar(&p.mem, "memprofile", "", "write a heap profile (in use and allocated) to this file when the command succeeds (go tool pprof)")
}

// start begins the CPU profile.
func (p *profiling) start() error {
	if p.cpu == "" {
		return nil
	}
	f, err := outfile.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile and writes the heap profile.
func (p *profiling) stop() error {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		p.cpuFile = nil
	}
	if p.mem == "" {
		return nil
	}
	runtime.GC() // up-to-date in-use numbers
	if err := outfile.Write(p.mem, func(w io.Writer) error { return pprof.Lookup("allocs").WriteTo(w, 0) }); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}

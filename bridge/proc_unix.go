//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// setProcAttr starts the child in its own process group, so that killing
// it also ends what it started (a shell script's python, a data loader's
// workers).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree kills the child's process group.
func killTree(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}

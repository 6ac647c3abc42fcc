//go:build !unix

package bridge

import "os/exec"

func setProcAttr(*exec.Cmd) {}

func killTree(cmd *exec.Cmd) { cmd.Process.Kill() }

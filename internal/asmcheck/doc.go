// Package asmcheck holds the checks of the module's Go assembly: no vector
// kernel mixes legacy-SSE instructions with 256- or 512-bit ones, and
// (Generated, for the packages' tests) a generated file is its generator's
// output.
//
// A legacy-SSE instruction (MOVD, MOVQ, MOVSD, … on an X register) executed
// while the upper halves of the YMM/ZMM registers are dirty makes the core
// merge or save them: on the hosts measured (AMD EPYC and Intel Xeon, both
// under KVM) about 110 ns per call, whatever the vector length. One
// `MOVD AX, X1` after the first VBROADCASTSS of tensor.GramToDist's kernel
// made its 8-element call cost 129 ns instead of 21 ns, and the Soft
// Medoid's forward pass, which calls it 90,000–180,000 times, 30–60% slower.
// The VEX forms (VMOVD, VMOVQ, VMOVSD) do the same work without it.
package asmcheck

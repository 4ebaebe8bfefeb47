// Package arch holds the vector primitives tflrun's kernels spend their
// time in (matrix × vector products, dot products, elementwise vector
// arithmetic, vector sigmoid and tanh, int8 products with exact int32
// accumulation), each as a portable Go function and, on CPUs where it
// pays, assembly twins chosen once at start-up.
//
// # Using it
//
// Kernels call the package-level functions (MatVecMulAcc, Sigmoid,
// MatVecMulAccInt8, …). Each dispatches through a function variable that
// init sets to the best implementation for the level in use. Layouts:
// matrices are row-major (a rows×cols matrix occupies m[r*cols+c]);
// batches of vectors are stored back to back. The exported functions check
// slice lengths (a short slice is a kernel bug and panics); the
// implementations behind them may assume the sizes are consistent.
//
// Convolutions (gemm.go, dwconv.go, requant_channel.go, convert.go) use
// GemmF32 and GemmInt8RequantizeInt8/Uint8 on weights packed once at
// Prepare (PackGemmF32, PackGemmInt8: blocks of 16 output channels, so
// the kernels broadcast inputs instead of summing horizontally), the
// depthwise kernels DepthwiseConvF32 / DepthwiseConvRequantizeInt8 over
// rectangles of output pixels (DepthwiseGeom), and per-channel
// requantisation (ChannelRequant, RequantizeChannelsInt8) fused into the
// integer kernels' epilogues; the amd64 epilogues share the macros of
// requant_channel_amd64.h.
//
// Short rows (packed.go): MatVecMulAccPacked multiplies a matrix packed
// once at Prepare by PackMatrix (blocks of 16 rows stored column by
// column: one register holds a column of 16 rows, x[c] is broadcast, no
// horizontal sums), which the float LSTM panels and FULLY_CONNECTED with
// constant weights use. Also for particular kernels: DotRowsInt16 (the
// integer SVDF's time filter), VecClamp (float activation clamps with
// C++'s std::min/std::max bits), SelectAboveF32 (TOPK_V2's threshold
// scan), VecMaxF32 / MaxBlocksF32 (float MAX_POOL_2D's window maximum
// with std::max's bits, one call per output row and window tap),
// PReluF32 / LeakyReluF32 (float PRELU and LEAKY_RELU, compare and
// blend), LookupBytes (the 256-entry tables of the 8-bit activations:
// TBL on arm64, VPSHUFB rows on amd64), BilinearF32 (one pixel of
// float RESIZE_BILINEAR, in TFLite's summation order), BilinearU8
// and BilinearRowU8 (one pixel, and one output row from precomputed
// BilinearTaps, of uint8 RESIZE_BILINEAR: float32 weights, + 0.5,
// truncated) and FFTRadix4F64 (one float64 radix-4 pass of the FFT
// behind RFFT2D and AudioSpectrogram, four bins per vector). The
// scalar fixed-point functions SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT and MultiplyByQuantizedMultiplier (requant_generic.go)
// are the reference every requantising primitive is tested against; package
// ops wraps them (ops.MultiplyByQuantizedMultiplier, …) for the integer
// kernels of ops/builtin and fused.
//
// # Levels
//
// A Level (generic, avx2, avx512, neon, neon-dotprod, neon-i8mm) names a
// set of CPU features. Levels form a chain per GOARCH (avx512 ⊃ avx2 ⊃
// generic; neon-i8mm ⊃ neon-dotprod ⊃ neon ⊃ generic on arm64; neon ⊃
// generic on 32-bit arm,
// in GOARM=7 builds). At start-up the level is Best(), the
// highest one the CPU offers, unless the environment variable TFLRUN_ISA
// names a level to use instead. A TFLRUN_ISA that is unknown or names a
// level this process cannot use is ignored (the process runs at Best())
// and reported by ISAError; `tflrun` prints it as a warning. Use(level)
// (or interpreter.Options.ISA) switches the whole process later; it
// refuses, with a *LevelError naming the missing features, a level of
// another GOARCH, one the CPU lacks, or any level but generic in a
// -tags purego build. Describe and Summary report the CPU, the level and
// the implementation chosen for every primitive (`tflrun cpu`).
//
// Detection: golang.org/x/sys/cpu gives the baseline flags on every
// GOARCH (and honours GODEBUG=cpu.<feature>=off); on x86,
// github.com/klauspost/cpuid/v2 adds the AVX-512 subsets, VNNI, cache
// sizes and the model name, and a feature counts only if both agree. On
// Linux without cpuid data, cache sizes come from sysfs.
//
// # Accuracy and exactness
//
// Integer primitives give bit-identical results at every level for every
// input (int32 arithmetic wraps as in Go). VecAdd, VecMul and VecMulAcc
// are bit-identical too (no fused multiply-add). GemmF32,
// DepthwiseConvF32 and LogisticEigenF32 are bit-identical at every amd64
// level and in portable builds, and equal to TensorFlow Lite's builtin
// kernels on x86 (docs/tflite-float-gemm-order.md); the NEON GemmF32 and
// depthwise kernels fuse. MatVecMulAcc and Dot may
// sum in a different order and use FMA: they agree with float64 math to a
// few float32 ulps of Σ|a·b|. Sigmoid and Tanh use one algorithm at every
// level (a Cody-Waite reduced exponential with a degree-7 polynomial,
// and an odd polynomial for tanh near 0); their measured errors are in
// their doc comments.
//
// # Writing an implementation (for the arm64 NEON / dot-product work)
//
// Files: every primitive family X (activation, convert, dwconv, float32,
// gemm, int16, int8, packed, requant, requant_channel, selectabove,
// vecclamp, vecmax) has the same layout, as gonum's internal/asm does:
//
//	X.go                  exported functions and their doc, the function
//	                      slots they call and the slots' registry entries
//	X_generic.go          the portable implementation: the twins'
//	                      reference, and all of a -tags purego build
//	X_amd64.go            declarations of the amd64 assembly, the small Go
//	                      wrappers around it, its registrations
//	X_avx2_amd64.s        the AVX2 kernels
//	X_avx512_amd64.s      the AVX-512 kernels
//	X_arm64.go            the same for arm64
//	X_neon_arm64.s        the NEON kernels
//	X_neondotprod_arm64.s the kernels using the dot-product extension
//	X_arm.go              the same for 32-bit ARM (build tag arm.7: GOARM=7
//	X_neon_arm.s          builds only), its NEON kernels
//	X_neon.go             the declarations, Go wrappers and registrations
//	                      shared by arm64 and 32-bit ARM where their
//	                      kernels have one signature (build tag arm64 ||
//	                      arm.7): requant, requant_channel, and gemm's
//	                      float kernel beside gemm_arm64.go's int8 ones
//	X_test.go             its tests: twins, edge cases, fuzz target
//
// A family has the assembly files of the levels it has kernels for (e.g.
// convert only amd64 ones). Every assembly file and every file
// that declares or registers assembly starts with `//go:build !purego`,
// so that -tags purego compiles portable Go only; nothing else is needed
// for the purego build (the registry then simply has no other
// implementations). Shared by all families: registry.go (the registry and
// Use), dispatch.go (the choice at start-up), level.go (levels), cpu.go
// and cpu_<goarch>.go (feature detection: cpu_arm64.go sets FeatASIMD,
// FeatASIMDDP, FeatI8MM and FeatSVE, cpu_arm.go FeatASIMD from HWCAP's
// NEON), asm.go/purego.go (the
// pureGo constant), requant_channel_amd64.h (the requantising epilogue
// macros of gemm, dwconv and requant_channel), and the test harness
// (twin_test.go, fuzz_test.go, bench_test.go, bench_cnn_test.go,
// asmwords_test.go).
//
// Signatures: an assembly function has exactly the signature of the
// function variable it fills (see X.go), is declared with
// //go:noescape, and may rely on the exported wrapper's checks (rows ≥ 1,
// cols ≥ 1, slices long enough), except that elementwise and activation
// kernels must accept length 0. It must not read past the end of any
// input (tests place inputs right before an unmapped page) nor write
// outside dst. When a kernel needs a minimum size (the AVX2 int8 kernel's
// overlapping tail needs cols ≥ 16), a small Go wrapper sends smaller
// shapes to the portable function (see int8_amd64.go).
//
// Registering: each primitive has a registry entry (matVecMulAccImpls,
// sigmoidImpls, …, in the family's X.go). Add an implementation from a
// package-level variable, never from an init function:
//
//	var _ = matVecMulAccInt8Impls.add("neondotprod", NEONDotProd, nil, matVecMulAccInt8SDOT)
//	var _ = sigmoidImpls.add("neon", NEON, nil, sigmoidNEON)
//
// The arguments are the name `tflrun cpu` shows (by convention the level,
// or the level plus the extension used, "avx512vnni"), the level the code
// is written for, extra features beyond the level's (nil, or e.g.
// []Feature{FeatI8MM}), and the function. Go initialises all
// package-level variables before any init function, so the selection in
// init sees every registration whatever the file order. For each
// primitive, the level in use picks the usable implementation of the
// deepest level on its chain (ties: the later registration); generic
// always qualifies. A new level is one constant in level.go plus its
// entry in levelDefs (name, GOARCH, parent, required features); a new
// feature is a Feat constant in cpu.go, its name, and its detection in
// cpu_<goarch>.go.
//
// Testing: the X_test.go files (with twin_test.go's harness) iterate over
// implsOf(<registry entry>), i.e. every usable implementation, so new ones
// are covered without new tests: lengths 0..257 and random shapes, odd
// offsets, guard pages and guard bands, ±0, subnormals, large values,
// NaN/±Inf. bench_test.go benchmarks every implementation
// (go test ./arch -bench=.) and TestSpeedRatios (TFLRUN_BENCH_RATIOS=1)
// prints speed-ups over the portable code measured in one run. Run the
// golden models at every level with `go test ./interpreter -run
// AtEveryLevel` or TFLRUN_ISA=<level> go test ./....
//
// Assembly here is hand-written Go assembly, except gemm_avx512_amd64.s
// (its ten kernels: 8 or 4 rows, ZMM or YMM, float32 or int8, plain or
// requantising) and requant_channel_amd64.h (its macros on ZMM and YMM),
// which the text/template program in _asm/ writes: edit the templates and
// run `go generate ./arch`; .ci/asmcheck fails when a committed file
// differs from the generator's. Edit the other .s files directly. Run `go
// vet ./arch` after either (asmdecl checks the argument frame against the
// Go declaration). Go's arm64 assembler lacks many
// ASIMD mnemonics (vector FADD/FMUL/FDIV, SMLAL2, SADALP, SQRDMULH,
// SDOT, …): the arm64 files spell them `WORD $0x4e20d400 // fadd v0.4s,
// v0.4s, v0.4s` (inside a #define, with a /* */ comment), and
// TestARM64Words (asmwords_test.go) assembles every commented instruction
// with GNU aarch64-linux-gnu-as and/or llvm-mc and compares; write new
// ones with a placeholder word and `go test ./arch -run TestARM64Words
// -fixwords`. Go's 32-bit arm assembler has no NEON at all: the *_arm.s
// files spell every NEON instruction so, checked by TestARMWords (GNU
// arm-linux-gnueabihf-as, llvm-mc). The arm64 kernels are tested under
// qemu-aarch64 (.ci/cross: -cpu cortex-a53 for neon, -cpu max for
// neon-i8mm, which includes neon-dotprod), the 32-bit ones under qemu-arm
// -cpu cortex-a7.
// 32-bit ARM NEON always computes in the Standard FPSCR mode: subnormal
// inputs and results are flushed to zero and there is no fused
// multiply-add or divide. Its float kernels are the sums and activations
// whose documented accuracy allows that (the twin tests compare a GEMM
// with a reference of flushed inputs there); the bit-exact elementwise
// primitives (VecAdd, VecMul, VecClamp, …) stay portable on 32-bit ARM.
package arch

package ops

import "sort"

// CustomKernels is a package's set of custom-operator kernels, keyed by
// custom code (the name in the model's operator_codes, "SignalRfft",
// "FlexTensorListReserve", …). Each operator's file adds its kernel from
// init with Register; the package's RegisterCustom hands the set to a
// resolver with AddTo. A package-level CustomKernels is written only
// during initialisation, so reading it later needs no lock.
type CustomKernels map[string]func() Kernel

// Register adds (or replaces) the kernel constructor of custom code name.
func (s CustomKernels) Register(name string, newKernel func() Kernel) { s[name] = newKernel }

// AddTo registers every kernel of s in r under its custom code.
func (s CustomKernels) AddTo(r *Resolver) {
	for name, newKernel := range s {
		r.AddCustom(name, newKernel)
	}
}

// Names lists the custom codes of s, sorted.
func (s CustomKernels) Names() []string {
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

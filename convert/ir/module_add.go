package ir

import "fmt"

// AddFunction registers a function the converter built itself (the
// condition or body of a functionalised TF1 loop, see package
// controlflow), so that Function finds it by name like a library
// function. It fails when the name is empty or already names a library
// function or an imported or added one.
func (m *Module) AddFunction(f *Function) error {
	if f == nil || f.Name == "" {
		return fmt.Errorf("cannot add a function without a name")
	}
	if _, ok := m.Library[f.Name]; ok {
		return fmt.Errorf("function %q is already in the graph's function library", f.Name)
	}
	if m.functions == nil {
		m.functions = map[string]*Function{}
	}
	if _, ok := m.functions[f.Name]; ok {
		return fmt.Errorf("function %q already exists", f.Name)
	}
	f.Module = m
	m.functions[f.Name] = f
	return nil
}

// HasFunction reports whether name is a library function or an added one.
func (m *Module) HasFunction(name string) bool {
	if _, ok := m.Library[name]; ok {
		return true
	}
	_, ok := m.functions[name]
	return ok
}

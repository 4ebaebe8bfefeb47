package tfmodel

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDumpGraph(t *testing.T) {
	m, err := Load(os.Getenv("G"))
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graph
	for _, n := range g.GetNode() {
		fmt.Printf("%s\t%s\t%s\n", n.GetName(), n.GetOp(), strings.Join(n.GetInput(), ","))
	}
	if m.MetaGraph != nil {
		for k, s := range m.MetaGraph.SignatureDef {
			fmt.Println("SIG", k, s)
		}
	}
}

package flexbuffers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// TestModelCustomOptions verifies the custom_options of every custom
// operator in the shared models (written by TensorFlow's converter with
// the C++ builder): Verify must accept each, and each root must be a map.
func TestModelCustomOptions(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "models")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no shared models at %s", root)
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".tflite" {
			return err
		}
		buf, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m := schema.GetRootAsModel(buf, 0)
		var sg schema.SubGraph
		var op schema.Operator
		for i := 0; i < m.SubgraphsLength(); i++ {
			m.Subgraphs(&sg, i)
			for j := 0; j < sg.OperatorsLength(); j++ {
				sg.Operators(&op, j)
				opts := op.CustomOptionsBytes()
				if len(opts) == 0 || op.CustomOptionsFormat() != schema.CustomOptionsFormatFLEXBUFFERS {
					continue
				}
				n++
				if err := Verify(opts); err != nil {
					t.Errorf("%s: subgraph %d operator %d: %v", p, i, j, err)
				} else if _, err := RootMap(opts); err != nil {
					t.Errorf("%s: subgraph %d operator %d: %v", p, i, j, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no custom operators with FlexBuffer options in the shared models")
	}
	t.Logf("%d custom_options buffers verified", n)
}

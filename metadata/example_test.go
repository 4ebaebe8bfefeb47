package metadata_test

import (
	"fmt"
	"os"

	"github.com/tflrun/tflrun/metadata"
)

// Example attaches metadata and a label file to a model, as TensorFlow
// Lite's metadata writers do, and reads them back as an app would.
func Example() {
	model, err := os.ReadFile("../cmd/tflrun/embedded/seeded_lstm.tflite")
	if err != nil {
		fmt.Println(err)
		return
	}
	md := &metadata.ModelMetadata{
		Name:    "digits",
		Version: "1",
		Subgraphs: []metadata.SubgraphMetadata{{
			Inputs: []metadata.TensorMetadata{{
				Name:         "image",
				ProcessUnits: []metadata.ProcessUnit{{Normalization: &metadata.NormalizationOptions{Mean: []float32{0}, Std: []float32{255}}}},
			}},
			Outputs: []metadata.TensorMetadata{{
				Name:            "probabilities",
				AssociatedFiles: []metadata.AssociatedFile{{Name: "labels.txt", Type: metadata.FileTensorAxisLabels}},
			}},
		}},
	}
	labels := []byte("zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n")
	withMeta, err := metadata.Populate(model, md, []metadata.File{{Name: "labels.txt", Data: labels}})
	if err != nil {
		fmt.Println(err)
		return
	}

	m, err := metadata.FromModel(withMeta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Metadata.Name, m.Metadata.Version, m.Files.Names())
	fmt.Println("input normalisation:", *m.Tensor(0, false, 0).Normalization())
	names, err := m.Labels(0, 0)
	fmt.Println(len(names), names[3], err)
	// Output:
	// digits 1 [labels.txt]
	// input normalisation: {[0] [255]}
	// 10 three <nil>
}

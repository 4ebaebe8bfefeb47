// Package corpus checks tflrun against public models nobody on the project
// wrote: the .tflite files of tflite.tsv (run by tflrun, compared with
// TensorFlow Lite's builtin kernels) and the SavedModels and GraphDefs of
// tf.tsv (converted by tflrun, then run).
//
// The models themselves are never part of the repository. Each manifest
// row names where a file came from (owner/repo@commit:path), its licence,
// what it is and its SHA-256, and the outcome tflrun reached on it when the
// row was last recorded (the expect column). The tests read the folders from
// the environment and skip, naming the variable, when it is unset:
//
//	TFLRUN_TFLITE_CORPUS  folder holding tflite.tsv's files (by their file column)
//	TFLRUN_TF_CORPUS      folder holding tf.tsv's files and SavedModel folders
//	TFLRUN_TF_REFS        optional: folder holding tfref.tsv's reference .tflite
//	                      files (default: TFLRUN_TF_CORPUS)
//	TFLITE_REF            optional: TensorFlow Lite's runner (internal/optest.RefEnv);
//	                      without it a "match" expectation is checked as "runs"
//
// A model whose outcome falls below its expectation fails the test (a
// regression); one that does better is logged, and TFLRUN_CORPUS_UPDATE=1
// rewrites the expect column with what was seen. run.sh prints the table.
//
// Outcomes, from worst to best, for .tflite files: refused (Load, New or
// AllocateTensors returned an error), fails (Invoke returned an error),
// runs (Invoke succeeded on seeded random inputs), differs (TensorFlow Lite
// ran it and at least one output differs beyond the tolerance: integers
// exactly, floats 1e-5 + 1e-5·max|ref|; logged as worse than runs only when
// TensorFlow Lite itself ran it), match (every output agrees). For
// TensorFlow models: refused (the converter returned an error), converts,
// runs (the converted model runs on random inputs), fused (it runs and
// holds no WHILE and, when the manifest lists recurrent layers, a fused
// recurrent operator for them).
//
// tfref.tsv pairs models of tf.tsv with an independent reference: the
// .tflite TensorFlow's own converter wrote for the same model, kept in the
// model's source repository. TestTFReference converts the model, runs both
// on the same inputs and records match, differs, fails (the converted
// model does not run), runs (the reference does not) or refused.
package corpus

// Package metadata reads TensorFlow Lite Metadata: the ModelMetadata
// flatbuffer a model carries in its "TFLITE_METADATA" metadata buffer
// (name, description, version, author, licence, and per input and output
// tensor: content kind, normalisation, score calibration and thresholds,
// statistics, associated files) and the associated files themselves
// (labels, vocabularies, calibration tables), which TensorFlow Lite's
// metadata writers zip onto the end of the .tflite file so that the
// model file is also a zip archive.
//
// The layout is tflite-support's metadata_schema.fbs (file identifier
// "M001", schema 1.5): every table field is read at the slot that schema
// gives it. The flatbuffer is decoded directly, with every offset, vector
// and string checked against the buffer before it is read, and with a work
// budget proportional to the buffer's size (offsets can make one table
// appear many times), so hostile metadata yields an error naming the
// field, never a panic or unbounded work. Fields this package does not
// know (from a newer schema) are ignored, as flatbuffers readers do, and
// union members it does not know are reported by their type number.
//
// FromModel takes a whole model file's bytes. Programs that hold a model
// another way can call Parse on the metadata buffer (an
// interpreter.Model's Metadata entry named BufferName) and OpenArchive on
// the file. Populate writes metadata and associated files into a model,
// as tflite-support's MetadataPopulator does.
package metadata

// Package perception holds tflrun's kernels for the custom operators that
// vision models ship with beyond TensorFlow Lite's builtin resolver: those
// of LiteRT's perception library (tflite/kernels/perception), those
// MediaPipe registers for its segmentation and landmark models
// (mediapipe/util/tflite/operations) and Coral's PosenetDecoderOp. Stock
// TensorFlow Lite refuses a model holding them unless the application
// registers these kernels itself; tflrun's default resolver has them.
//
// Each kernel follows its upstream kernel's arithmetic and checks; each
// operator's file names the source it follows and adds its own entry from
// init. RegisterCustom adds them to a resolver; interpreter.DefaultResolver
// does so.
package perception

import (
	"github.com/tflrun/tflrun/ops"
)

// kernels holds the package's kernels by custom code; each operator's
// file adds its own entry from init.
var kernels = ops.CustomKernels{}

func register(name string, newK func() ops.Kernel) { kernels.Register(name, newK) }

// RegisterCustom adds every kernel of this package to r under its custom
// code ("MaxUnpooling2D", …).
func RegisterCustom(r *ops.Resolver) { kernels.AddTo(r) }

// Names lists the custom codes this package has kernels for, sorted.
func Names() []string { return kernels.Names() }

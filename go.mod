module github.com/tflrun/tflrun

go 1.26

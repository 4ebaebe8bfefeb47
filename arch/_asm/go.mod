module github.com/tflrun/tflrun/arch/_asm

go 1.26.0

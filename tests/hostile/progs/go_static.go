// tests/hostile/go.sh: Go's default build (no cgo: statically linked),
// which nothing can be preloaded into.  Prints, exits 4.
package main

import (
	"fmt"
	"os"
)

func main() {
	ch := make(chan int)
	go func() { ch <- 42 }()
	defer func() {
		fmt.Println("recovered:", recover(), <-ch)
		os.Exit(4)
	}()
	panic("static")
}

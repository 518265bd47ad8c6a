// tests/hostile/go.sh: goroutines whose stacks grow (deep recursion makes
// Go copy them), a recovered panic, and cgo calls counted exactly.
// Usage: go_hostile GOROUTINES CALLS DEPTH; exits 3 after its results.
package main

/*
__attribute__((noinline)) int cgo_step(int x) { return x * 3 + 1; }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
)

//go:noinline
func deep(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + 1 + int(pad[n%64]&0)
}

func risky(i int) (r int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("recovered: %v", p)
		}
	}()
	if i%3 == 0 {
		panic(errors.New("boom"))
	}
	return i * 2, nil
}

func main() {
	g, _ := strconv.Atoi(os.Args[1])
	calls, _ := strconv.Atoi(os.Args[2])
	depth, _ := strconv.Atoi(os.Args[3])
	var wg sync.WaitGroup
	res := make([]int, g)
	steps := make([]int, g)
	for i := 0; i < g; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = deep(depth + i)
			s := i
			for k := 0; k < calls; k++ {
				s = int(C.cgo_step(C.int(s))) & 0xffff
			}
			steps[i] = s
		}(i)
	}
	wg.Wait()
	ch := make(chan int)
	go func() {
		s := 0
		for i := 0; i < 1000; i++ {
			s += i
		}
		ch <- s
	}()
	fmt.Println("deep", res, "steps", steps, "sum", <-ch)
	for i := 0; i < 5; i++ {
		r, err := risky(i)
		fmt.Println(i, r, err)
	}
	os.Exit(3)
}

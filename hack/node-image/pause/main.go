// Command pause is the sandbox (infrastructure) container of a pod in the kind
// node image of this tree: it holds the pod's namespaces, reaps the zombies
// of a pod that shares its process namespace, and exits on SIGINT or SIGTERM.
// It stands in for registry.k8s.io/pause, whose source is C; built static
// (CGO_ENABLED=0) by hack/build-node-image.sh.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("pause (featureflags)")
		return
	}
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "Warning: pause should be the first process")
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		switch s {
		case syscall.SIGCHLD:
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		default:
			fmt.Fprintf(os.Stderr, "Shutting down, got signal %v\n", s)
			os.Exit(0)
		}
	}
}

// informer-sync: does a client-go dynamic informer, with client-go's defaults
// (WatchList streaming included), or a controller-runtime cache (-client
// controller-runtime), sync against the API server a kubeconfig names?
// Prints one line, "synced <resource> in <ms> ms" or "not synced <resource> after
// <s> s: <last error>", and exits 0 or 1. The differential suite runs it against
// kube-apiserver and against schedopt-sim serve.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the API server's kubeconfig")
	resource := flag.String("resource", "kubevirt.io/v1/virtualmachineinstances", "group/version/resource (core: v1/pods)")
	timeout := flag.Duration("timeout", 20*time.Second, "how long to wait for the sync")
	which := flag.String("client", "client-go", "client-go (a dynamic informer) or controller-runtime (a cache)")
	flag.Parse()

	// client-go logs why a sync stalls through klog; keep the last line for the verdict.
	var mu sync.Mutex
	lastError := ""
	klog.SetLogger(klog.NewKlogr())
	klog.LogToStderr(false)
	klog.SetOutputBySeverity("INFO", writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		lastError = strings.TrimSpace(string(p))
		return len(p), nil
	}))

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Printf("not synced %s: kubeconfig: %v\n", *resource, err)
		os.Exit(1)
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		fmt.Printf("not synced %s: client: %v\n", *resource, err)
		os.Exit(1)
	}
	parts := strings.Split(*resource, "/")
	gvr := schema.GroupVersionResource{Version: parts[len(parts)-2], Resource: parts[len(parts)-1]}
	if len(parts) == 3 {
		gvr.Group = parts[0]
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	started := time.Now()
	synced := false
	if *which == "controller-runtime" {
		if err := syncControllerRuntime(ctx, config, gvr); err == nil {
			synced = true
		} else {
			mu.Lock()
			lastError = err.Error() + "; " + lastError
			mu.Unlock()
		}
	} else {
		factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
		informer := factory.ForResource(gvr).Informer()
		factory.Start(ctx.Done())
		synced = cache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
	}
	if synced {
		fmt.Printf("synced %s in %d ms\n", *resource, time.Since(started).Milliseconds())
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("not synced %s after %s: %s\n", *resource, timeout.String(), lastError)
	os.Exit(1)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

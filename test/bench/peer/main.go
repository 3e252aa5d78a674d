// peer-cache: what a team would write instead of schedopt, measured. A Go operator's
// cache over the objects schedopt watches (VMIs, VirtualMachines, VMIMs, the KubeVirt CR,
// PVCs, PVs, Nodes, SchedulingOptimizations), with the usual defaults:
//
//   - controller-runtime (the default): a controller-runtime cache with KubeVirt's typed
//     API (kubevirt.io/api) and client-go's core types; SchedulingOptimizations, which
//     have no Go types here, unstructured. Every object is kept decoded, whole.
//   - client-go: client-go dynamic shared informers (unstructured objects).
//
// It waits for every informer to sync, then prints one JSON line: the client, the time
// from start to synced, the objects cached per resource and the process's peak RSS
// (VmHWM). scale_bench runs it beside schedopt on the same cluster.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// The resources schedopt watches, as group/version/resource and kind.
var watched = []struct {
	gvr  schema.GroupVersionResource
	kind string
}{
	{schema.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstances"}, "VirtualMachineInstance"},
	{schema.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachines"}, "VirtualMachine"},
	{schema.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstancemigrations"}, "VirtualMachineInstanceMigration"},
	{schema.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "kubevirts"}, "KubeVirt"},
	{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, "PersistentVolumeClaim"},
	{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, "PersistentVolume"},
	{schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, "Node"},
	{schema.GroupVersionResource{Group: "stork.libopenstorage.org", Version: "v1alpha1", Resource: "schedulingoptimizations"}, "SchedulingOptimization"},
}

type result struct {
	Client     string         `json:"client"`
	SyncedS    float64        `json:"syncedSeconds"`
	PeakRSSKiB int64          `json:"peakRssKiB"`
	Objects    map[string]int `json:"objects"`
	Error      string         `json:"error,omitempty"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the API server's kubeconfig")
	which := flag.String("client", "controller-runtime", "controller-runtime (typed cache) or client-go (dynamic informers)")
	timeout := flag.Duration("timeout", 10*time.Minute, "how long to wait for every informer to sync")
	flag.Parse()
	klog.LogToStderr(true)

	start := time.Now()
	out := result{Client: *which, Objects: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err == nil {
		switch *which {
		case "controller-runtime":
			err = syncControllerRuntime(ctx, config, out.Objects)
		case "client-go":
			err = syncDynamic(ctx, config, out.Objects)
		default:
			err = fmt.Errorf("unknown client %q", *which)
		}
	}
	out.SyncedS = time.Since(start).Seconds()
	if err != nil {
		out.Error = err.Error()
	}
	out.PeakRSSKiB = peakRSSKiB()
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if err != nil {
		os.Exit(1)
	}
}

// syncControllerRuntime builds the cache an operator on controller-runtime would: one
// scheme with KubeVirt's and Kubernetes' types, the cache's defaults otherwise.
func syncControllerRuntime(ctx context.Context, config *rest.Config, counts map[string]int) error {
	scheme := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := kubevirtv1.AddToScheme(scheme); err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		return fmt.Errorf("http client: %w", err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(config, httpClient)
	if err != nil {
		return fmt.Errorf("rest mapper: %w", err)
	}
	c, err := crcache.New(config, crcache.Options{HTTPClient: httpClient, Scheme: scheme, Mapper: mapper})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	// What the cache holds of each kind, and the list its objects are read back into.
	type typed struct {
		object client.Object
		list   client.ObjectList
	}
	requests := &unstructured.Unstructured{}
	requests.SetGroupVersionKind(schema.GroupVersionKind{Group: "stork.libopenstorage.org", Version: "v1alpha1", Kind: "SchedulingOptimization"})
	requestList := &unstructured.UnstructuredList{}
	requestList.SetGroupVersionKind(schema.GroupVersionKind{Group: "stork.libopenstorage.org", Version: "v1alpha1", Kind: "SchedulingOptimizationList"})
	kinds := map[string]typed{
		"VirtualMachineInstance":          {&kubevirtv1.VirtualMachineInstance{}, &kubevirtv1.VirtualMachineInstanceList{}},
		"VirtualMachine":                  {&kubevirtv1.VirtualMachine{}, &kubevirtv1.VirtualMachineList{}},
		"VirtualMachineInstanceMigration": {&kubevirtv1.VirtualMachineInstanceMigration{}, &kubevirtv1.VirtualMachineInstanceMigrationList{}},
		"KubeVirt":                        {&kubevirtv1.KubeVirt{}, &kubevirtv1.KubeVirtList{}},
		"PersistentVolumeClaim":           {&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolumeClaimList{}},
		"PersistentVolume":                {&corev1.PersistentVolume{}, &corev1.PersistentVolumeList{}},
		"Node":                            {&corev1.Node{}, &corev1.NodeList{}},
		"SchedulingOptimization":          {requests, requestList},
	}

	go func() { _ = c.Start(ctx) }()
	for _, w := range watched {
		// GetInformer blocks until the informer synced (BlockUntilSynced defaults to true).
		if _, err := c.GetInformer(ctx, kinds[w.kind].object); err != nil {
			return fmt.Errorf("%s: %w", w.gvr.Resource, err)
		}
	}
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("cache did not sync")
	}
	for _, w := range watched {
		list := kinds[w.kind].list
		if err := c.List(ctx, list); err != nil {
			return fmt.Errorf("list %s from the cache: %w", w.gvr.Resource, err)
		}
		counts[w.gvr.Resource] = apimeta.LenList(list)
	}
	return nil
}

// peakRSSKiB is the process's VmHWM.
func peakRSSKiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

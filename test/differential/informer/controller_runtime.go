package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// syncControllerRuntime waits for a controller-runtime cache, with its defaults, to sync
// an informer on gvr. The objects are unstructured: kubevirt.io/api, whose types an
// operator would use, is not served by the Go module proxy this project builds from.
func syncControllerRuntime(ctx context.Context, config *rest.Config, gvr schema.GroupVersionResource) error {
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		return fmt.Errorf("http client: %w", err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(config, httpClient)
	if err != nil {
		return fmt.Errorf("rest mapper: %w", err)
	}
	gvk, err := mapper.KindFor(gvr)
	if err != nil {
		return fmt.Errorf("kind of %s: %w", gvr, err)
	}
	c, err := crcache.New(config, crcache.Options{HTTPClient: httpClient, Mapper: mapper})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	go func() { _ = c.Start(ctx) }()
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(gvk)
	// GetInformer blocks until the informer synced (BlockUntilSynced defaults to true)
	// or ctx ends.
	if _, err := c.GetInformer(ctx, object); err != nil {
		return err
	}
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("cache did not sync")
	}
	return nil
}

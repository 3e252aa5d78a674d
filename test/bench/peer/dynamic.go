package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// syncDynamic starts one client-go dynamic shared informer per watched resource, with
// the factory's defaults (no resync, every namespace), and waits for all of them.
func syncDynamic(ctx context.Context, config *rest.Config, counts map[string]int) error {
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	informers := map[string]cache.SharedIndexInformer{}
	for _, w := range watched {
		informers[w.gvr.Resource] = factory.ForResource(w.gvr).Informer()
	}
	factory.Start(ctx.Done())
	for resource, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return fmt.Errorf("%s did not sync", resource.Resource)
		}
	}
	for resource, informer := range informers {
		counts[resource] = len(informer.GetStore().ListKeys())
	}
	return nil
}

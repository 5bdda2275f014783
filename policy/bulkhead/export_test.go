package bulkhead

// SetTestHookBeforeQueue sets the hook wait runs before it queues a waiter.
func SetTestHookBeforeQueue(f func()) { testHookBeforeQueue = f }

package bulkhead

// SetTestHookBeforeQueue sets the hook wait runs before it queues a waiter.
func SetTestHookBeforeQueue(f func()) { testHookBeforeQueue = f }

// SetTestHookWaiting sets the hook wait runs just before a queued waiter
// waits.
func SetTestHookWaiting(f func()) { testHookWaiting = f }

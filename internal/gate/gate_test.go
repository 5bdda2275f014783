package gate

import (
	"testing"
	"testing/synctest"
)

func TestSettleBeforeEnterAbandons(t *testing.T) {
	var g Gate
	if g.Settle() {
		t.Fatal("Settle reported a handler that never ran")
	}
	if g.Enter() {
		t.Fatal("a settled gate let the handler start")
	}
}

func TestEnterOnce(t *testing.T) {
	var g Gate
	if !g.Enter() {
		t.Fatal("the first Enter was refused")
	}
	if g.Enter() {
		t.Fatal("a second Enter was let in")
	}
	g.Exit()
	if !g.Settle() {
		t.Fatal("Settle after Exit reported no handler")
	}
}

// Settle waits, without polling, for a running handler to Exit.
func TestSettleWaitsForARunningHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Gate
		if !g.Enter() {
			t.Fatal("Enter refused")
		}
		settled := make(chan bool)
		go func() { settled <- g.Settle() }()
		synctest.Wait()
		select {
		case <-settled:
			t.Fatal("Settle returned while the handler still ran")
		default:
		}
		g.Exit()
		if !<-settled {
			t.Fatal("Settle reported no handler")
		}
	})
}

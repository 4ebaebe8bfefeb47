package bench

import (
	"sync"
	"time"
)

// peakMonitor samples the memory footprint (footprintKB) on a goroutine
// at a fixed interval, like TFLite's MemoryUsageMonitor, and keeps the
// largest value. A nil *peakMonitor is valid and does nothing.
type peakMonitor struct {
	done   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	peakKB int64
}

func startPeakMonitor(every time.Duration) *peakMonitor {
	m := &peakMonitor{done: make(chan struct{}), peakKB: -1}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			// Sample first, then check for stop: the last sample is taken
			// after the benchmark ends, as in TFLite.
			if kb := footprintKB(); kb > m.peakKB {
				m.peakKB = kb
			}
			select {
			case <-m.done:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// stop ends the sampling (it may be called more than once) and returns
// the peak in MiB, -1 when nothing could be read.
func (m *peakMonitor) stop() float64 {
	if m == nil {
		return -1
	}
	m.once.Do(func() { close(m.done) })
	m.wg.Wait()
	if m.peakKB < 0 {
		return -1
	}
	return float64(m.peakKB) / 1024
}

-f beryl_sync_2ff.f
beryl_axis_async_fifo.sv

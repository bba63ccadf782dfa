beryl_sync_2ff.sv

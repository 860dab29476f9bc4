except E: pass

finally: pass

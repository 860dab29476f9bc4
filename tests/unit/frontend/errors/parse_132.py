try: pass
else: pass

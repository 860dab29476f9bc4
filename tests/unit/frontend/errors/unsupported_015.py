import m

@decorator
async def handler(request):
    return 1

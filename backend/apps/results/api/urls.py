from django.urls import path

from . import views

urlpatterns = [
    path("imports", views.ImportView.as_view(), name="imports"),
]
